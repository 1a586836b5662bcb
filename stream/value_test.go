package stream

import (
	"errors"
	"testing"
)

func TestParseValue(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Value
		ok   bool
	}{
		{"", ValueAuto, true}, {"auto", ValueAuto, true}, {"dual", ValueAuto, true},
		{"wall", ValueWall, true}, {"cpu", ValueCPU, true}, {"thread-cpu", ValueCPU, true},
		{"offcpu", ValueOffCPU, true}, {"global", ValueAuto, false}, {"samples", ValueAuto, false},
	} {
		if v, ok := ParseValue(c.s); v != c.want || ok != c.ok {
			t.Errorf("ParseValue(%q) = %v, %v; want %v, %v", c.s, v, ok, c.want, c.ok)
		}
		if c.ok && c.s != "" && c.s != "dual" && c.s != "thread-cpu" && c.want.String() != c.s {
			t.Errorf("%v.String() = %q, want %q", c.want, c.want.String(), c.s)
		}
	}
}

// TestValueClocks: each value's clocks, on each kind of trace.
func TestValueClocks(t *testing.T) {
	dual, wall, cpu := &Trace{HasWall: true, HasCPU: true}, &Trace{HasWall: true}, &Trace{HasCPU: true}
	for _, c := range []struct {
		v         Value
		t         *Trace
		wall, cpu bool
		err       string // "" for none
	}{
		{ValueAuto, dual, true, true, ""},
		{ValueAuto, cpu, false, true, ""},
		{ValueWall, dual, true, false, ""},
		{ValueCPU, dual, false, true, ""},
		{ValueOffCPU, dual, true, true, ""},
		{ValueCPU, wall, false, false, "the trace has no thread-CPU clock"},
		{ValueWall, cpu, false, false, "the trace has no wall clock"},
		{ValueOffCPU, cpu, false, false, "off-CPU time needs a trace with both the wall and the thread-CPU clock"},
		{Value(9), dual, false, false, "unknown value(9)"},
	} {
		w, u, err := c.v.Clocks(c.t)
		msg := ""
		if err != nil {
			msg = err.Error()
			var ve *ValueError
			if !errors.As(err, &ve) {
				t.Errorf("%v: error %T, want a *ValueError", c.v, err)
			}
		}
		if w != c.wall || u != c.cpu || msg != c.err {
			t.Errorf("%v of %+v: %v, %v, %q; want %v, %v, %q", c.v, *c.t, w, u, msg, c.wall, c.cpu, c.err)
		}
	}
	e := &ValueError{Value: ValueOffCPU, View: "dump", Why: "it prints times"}
	if got := e.Error(); got != "dump cannot show offcpu time: it prints times" {
		t.Errorf("view refusal: %q", got)
	}
}
