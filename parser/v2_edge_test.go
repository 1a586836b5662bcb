package parser_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// paced is a two-thread trace of nested calls whose consecutive records of
// a thread are step(i) ticks apart on both clocks; each thread starts at
// time 0 on its CPU clock and at first on the wall clock.
func paced(clock string, first uint32, step func(i int) uint32) *tracegen.Trace {
	tr := &tracegen.Trace{Clock: clock, VM: "art",
		Threads: []tracegen.Thread{{ID: 100, Name: "a"}, {ID: 200, Name: "b"}},
		Methods: []tracegen.Method{{ID: 0, Class: "a.A", Name: "f", Signature: "()V"}, {ID: 4, Class: "a.A", Name: "g", Signature: "()V"}}}
	for ti, th := range tr.Threads {
		cpu, wall := uint32(0), first+uint32(ti)
		for i := range 400 {
			act := tracegen.Action(i % 2)
			tr.Records = append(tr.Records, tracegen.Record{Thread: th.ID, Method: uint32(i/2%2) << 2, Action: act, CPU: cpu, Wall: wall})
			d := step(i)
			cpu, wall = cpu+d, wall+d
		}
	}
	return tr
}

// TestV2Guesses covers traces without a summary: the time unit comes from
// the size of the time steps, the one clock of version 4 from the threads'
// first times, and Options override both.
func TestV2Guesses(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	us := func(int) uint32 { return uint32(rng.IntN(4)) }           // instrumented µs: many 0 and 1
	ns := func(int) uint32 { return 150 + uint32(rng.IntN(2000)) }  // instrumented ns
	usSampled := func(i int) uint32 { return uint32(i%6/5) * 1000 } // a sample of 6 events every ms
	nsSampled := func(i int) uint32 { return uint32(i%6/5) * 1_000_000 }
	noSum := tracegen.V2Options{NoSummary: true, Streaming: true}
	rawD := tracegen.V2Options{Layout: tracegen.V2d, RawTimes: true, NoSummary: true}
	for _, c := range []struct {
		name   string
		tr     *tracegen.Trace
		opt    tracegen.V2Options
		popt   parser.Options
		unit   time.Duration
		layout parser.V2Layout
		clock  parser.Clock
		from   string
	}{
		{"us-instrumented", paced("dual", 5, us), noSum, parser.Options{}, time.Microsecond, parser.V2c, parser.ClockDual, "data version 5"},
		{"ns-instrumented", paced("dual", 5, ns), rawD, parser.Options{}, time.Nanosecond, parser.V2d, parser.ClockDual, "data version 5"},
		{"us-sampled", paced("wall", 5, usSampled), noSum, parser.Options{}, time.Microsecond, parser.V2c, parser.ClockWall, "first record times (no summary)"},
		{"ns-sampled", paced("wall", 5, nsSampled), rawD, parser.Options{}, time.Nanosecond, parser.V2d, parser.ClockWall, "first record times (no summary)"},
		{"thread-cpu", paced("thread-cpu", 5, us), noSum, parser.Options{}, time.Microsecond, parser.V2c, parser.ClockThreadCPU, "first record times (no summary)"},
		// A clock among the guessed one's stands; another replaces it.
		{"override", paced("thread-cpu", 5, us), noSum, parser.Options{Clock: parser.ClockThreadCPU, TimeUnit: time.Nanosecond}, time.Nanosecond, parser.V2d, parser.ClockThreadCPU, "first record times (no summary)"},
		{"override clock", paced("thread-cpu", 5, us), noSum, parser.Options{Clock: parser.ClockWall}, time.Microsecond, parser.V2c, parser.ClockWall, "--clock"},
		{"V2b", paced("dual", 5, ns), tracegen.V2Options{Layout: tracegen.V2b, NoSummary: true}, parser.Options{}, time.Microsecond, parser.V2b, parser.ClockDual, "data version 5"},
	} {
		h, got, err := readAll(t, c.tr.V2(c.opt), c.popt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h.TimeUnit != c.unit || h.Layout != c.layout || h.Clock != c.clock || h.ClockFrom != c.from || h.HasSummary {
			t.Errorf("%s: unit %v layout %v clock %v from %q", c.name, h.TimeUnit, h.Layout, h.Clock, h.ClockFrom)
		}
		guessedUnit := c.popt.TimeUnit == 0 && c.layout != parser.V2b
		guessedClock := c.popt.Clock == parser.ClockUnknown && c.tr.Clock != "dual"
		if n := btoi(guessedUnit) + btoi(guessedClock); len(h.Warnings) != n {
			t.Errorf("%s: warnings %q, want %d", c.name, h.Warnings, n)
		}
		if guessedUnit && !strings.HasPrefix(h.Warnings[0], "the V2 trace does not state its time unit (no summary): ") {
			t.Errorf("%s: warning %q", c.name, h.Warnings[0])
		}
		want := expectedV2(c.tr, c.clock, 1)
		if c.clock.String() != c.tr.Clock && c.tr.Clock != "dual" {
			// The one time the trace records, read on the clock Options
			// give it.
			want = expectedV2(c.tr, parser.ClockThreadCPU, 1)
			for i := range want {
				want[i].Wall, want[i].CPU = want[i].CPU, 0
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: records differ", c.name)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestV2Hybrid reads row E: method packets, V1-style key text with
// version 5, then SLOW and V2b blocks; and the same without method packets.
func TestV2Hybrid(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	data := tr.V2(tracegen.V2Options{Layout: tracegen.V2b, Hybrid: true})
	if data[0] != 1 || !bytes.Contains(data, []byte("*version\n5\n")) {
		t.Fatalf("not a row-E file: % x", data[:16])
	}
	h, got, err := readAll(t, data, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Variant != parser.V2Hybrid || h.KeyVersion != 5 || h.DataVersion != 5 || h.ClockFrom != "key text" || h.PID() != 4242 || h.StartTime != tr.Start {
		t.Errorf("header: %+v", h)
	}
	if m, ok := h.Method(parser.MethodID(tracegen.MethodPointer(0))); !ok || m.Name != "loop" {
		t.Errorf("method from the packets before the key: %+v", m)
	}
	if _, ok := h.Thread(1); ok {
		t.Errorf("row E writes no thread names")
	}
	if !slices.Equal(got, expectedV2(tr, parser.ClockDual, 1)) {
		t.Errorf("records %v", got)
	}
	noMethods := *tr
	noMethods.Methods = nil
	data = noMethods.V2(tracegen.V2Options{Layout: tracegen.V2b, Hybrid: true})
	if h, got, err := readAll(t, data, parser.Options{}); err != nil || h.Variant != parser.V2Hybrid || h.Layout != parser.V2b || len(got) != 4 {
		t.Errorf("row E without method packets: %v %v", h, err)
	}
}

// TestV2Truncation cuts V2 files at every byte: never a panic; when the
// header is whole, the records read are the first ones written, the count
// agrees, and the bytes after the last whole record are reported as lost.
func TestV2Truncation(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	tr.Records = append(tr.Records, longRun(40, "dual").Records...)
	tr.Threads = append(tr.Threads, tracegen.Thread{ID: 77777, Name: "worker"})
	for name, opt := range map[string]tracegen.V2Options{
		"V2c-streaming": {Streaming: true},
		"V2d-split":     {Layout: tracegen.V2d, Streaming: true, SplitRecords: 3},
		"V2b":           {Layout: tracegen.V2b},
		"V2b-hybrid":    {Layout: tracegen.V2b, Hybrid: true},
	} {
		data := tr.V2(opt)
		h, all, err := readAll(t, data, parser.Options{})
		if err != nil || len(all) != len(tr.Records) {
			t.Fatalf("%s whole: %v, %d records", name, err, len(all))
		}
		popt := parser.Options{Clock: parser.ClockDual, TimeUnit: h.TimeUnit}
		for cut := range len(data) {
			h, got, err := readAll(t, data[:cut], popt)
			if err != nil {
				continue // a cut inside the header or row E's key is an error, which is fine
			}
			if len(got) > len(all) || !slices.Equal(got, all[:len(got)]) || h.Records != int64(len(got)) {
				t.Fatalf("%s cut at %d: %d records of %d: %v", name, cut, h.Records, len(got), got)
			}
			if h.LostBytes != 0 && h.DataEnd+h.LostBytes != int64(cut) {
				t.Fatalf("%s cut at %d: data end %d + lost %d", name, cut, h.DataEnd, h.LostBytes)
			}
		}
	}
}

// TestV2Errors covers inputs that cannot be read, and oddities that are
// read with a warning.
func TestV2Errors(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	good := tr.V2(tracegen.V2Options{})
	badType := append(append(bytes.Clone(good[:32]), 9), good[32:]...)
	badMethod := bytes.Clone(good)
	n := int(badMethod[32+9]) | int(badMethod[32+10])<<8
	copy(badMethod[32+11:], bytes.ReplaceAll(badMethod[32+11:32+11+n], []byte{'\t'}, []byte{' '}))
	version4 := bytes.Clone(good)
	version4[4] = 4
	version14 := bytes.Clone(good)
	version14[4] = 0x14
	for _, c := range []struct {
		name string
		data []byte
		opt  parser.Options
		want string
	}{
		{"unknown-packet", badType, parser.Options{}, `^offset 32 \(0x20\): unknown V2 packet type 9: expected 0 \(thread\), 1 \(method\), 2 \(event block\) or 3 \(summary\)$`},
		{"bad-method", badMethod, parser.Options{}, `^offset 43 \(0x2b\): V2 method packet: expected <class><TAB><name>`},
		{"dual-in-version-4", version4, parser.Options{}, `clock dual needs two times per record, but V2 version 4 records hold one`},
		{"version-0x14", version14, parser.Options{}, `unknown data version 0x14`},
		{"time-unit", good, parser.Options{TimeUnit: time.Millisecond}, `^time unit 1ms: ART V2 traces count µs or ns$`},
	} {
		_, _, err := readAll(t, c.data, c.opt)
		var fe *parser.FormatError
		if err == nil || !regexpMatch(c.want, err.Error()) || (c.name != "time-unit") != errors.As(err, &fe) {
			t.Errorf("%s: error %v, want %s", c.name, err, c.want)
		}
	}
	tail := bytes.Clone(good)
	tail[20] = 1
	h, got, err := readAll(t, tail, parser.Options{})
	if err != nil || len(h.Warnings) != 1 || !strings.HasPrefix(h.Warnings[0], "bytes 14-31 of the V2 header are not zero") || len(got) != 4 {
		t.Errorf("non-zero header tail: %v, warnings %q", err, h.Warnings)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
