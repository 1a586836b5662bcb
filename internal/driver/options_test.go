package driver

import (
	"testing"

	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// TestOptionsClock: --clock becomes the value the views show and the clock
// the file must record, a window or not: nothing narrows the read, and
// offcpu needs both clocks.
func TestOptionsClock(t *testing.T) {
	for _, c := range []struct {
		clock, from string
		value       stream.Value
		file        parser.Clock
	}{
		{"auto", "", stream.ValueAuto, 0},
		{"dual", "", stream.ValueAuto, parser.ClockDual},
		{"wall", "", stream.ValueWall, parser.ClockWall},
		{"cpu", "", stream.ValueCPU, parser.ClockThreadCPU},
		{"thread-cpu", "", stream.ValueCPU, parser.ClockThreadCPU},
		{"cpu", "1ms", stream.ValueCPU, parser.ClockThreadCPU},
		{"offcpu", "", stream.ValueOffCPU, parser.ClockDual},
		{"offcpu", "1ms", stream.ValueOffCPU, parser.ClockDual},
	} {
		o, err := NewOptions(Flags{Clock: c.clock, From: c.from, TimeUnit: "auto", MaxDepth: 10, MappingMismatch: "error"})
		if err != nil || o.Value != c.value || o.Clock != c.file {
			t.Errorf("--clock %s --from %q: value %v, clock %v, %v; want %v, %v", c.clock, c.from, o.Value, o.Clock, err, c.value, c.file)
		}
	}
	if _, err := NewOptions(Flags{Clock: "cycles", TimeUnit: "auto", MaxDepth: 10}); err == nil {
		t.Error("--clock cycles: no error")
	} else if _, ok := err.(*UsageError); !ok {
		t.Errorf("--clock cycles: %T %v, want a *UsageError", err, err)
	}
}
