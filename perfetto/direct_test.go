package perfetto_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/stream"
)

// These tests drive the exporter directly with a made-up stream.

// fakeTrace is a one-thread dual-clock trace with two methods.
func fakeTrace() *stream.Trace {
	return &stream.Trace{
		Name: "x.trace", Process: stream.Process{StartMicros: 1000},
		HasWall: true, HasCPU: true,
		Threads: []stream.Thread{{Index: 0, ID: 5, Name: "main"}},
		Frames: []stream.Frame{
			{ID: 0, Name: "a.B.c", Class: "a.B", Method: "c", Signature: "()V", File: "a/B.java", Listed: true},
			{ID: 1, Name: "a.B.d", Class: "a.B", Method: "d", Signature: "()V", File: "a/B.java", Listed: true},
		},
	}
}

// TestEventDoesNotAllocate checks that, once its buffers have grown, the
// exporter writes events without allocating: memory does not grow with the
// number of records.
func TestEventDoesNotAllocate(t *testing.T) {
	tr := fakeTrace()
	e := perfetto.New(io.Discard, perfetto.Options{})
	if err := e.Begin(tr); err != nil {
		t.Fatal(err)
	}
	var now int64
	b := &stream.Batch{Events: make([]stream.Event, 1), Threads: tr.Threads, Frames: tr.Frames}
	call := func() {
		for _, ev := range []stream.Event{
			{Kind: stream.Begin, Frame: 0, Depth: 0},
			{Kind: stream.Begin, Frame: 1, Depth: 1},
			{Kind: stream.End, Flags: stream.Unwound, Frame: 1, Depth: 1},
			{Kind: stream.End, Frame: 0, Depth: 0},
		} {
			now += 3000
			ev.Wall, ev.CPU = now, now/2
			b.Events[0] = ev
			if err := e.Events(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 20_000 { // grow the buffers and flush a few times
		call()
	}
	if n := testing.AllocsPerRun(10_000, call); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
	if err := e.Finish(tr); err != nil {
		t.Fatal(err)
	}
}

// TestTimeGoingBackwards: the converter never lets a thread's time go
// backwards, but if it did, the events would be written with absolute
// timestamps and the delta chain would carry on unharmed.
func TestTimeGoingBackwards(t *testing.T) {
	var buf bytes.Buffer
	e := perfetto.New(&buf, perfetto.Options{})
	tr := fakeTrace()
	if err := e.Begin(tr); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []stream.Event{
		{Kind: stream.Begin, Frame: 0, Wall: 5000},
		{Kind: stream.End, Frame: 0, Wall: 5000},
		{Kind: stream.Begin, Frame: 1, Wall: 2000},
		{Kind: stream.End, Frame: 1, Wall: 3000},
		{Kind: stream.Begin, Frame: 0, Wall: 6000},
		{Kind: stream.End, Frame: 0, Wall: 9000},
	} {
		if err := e.Events(&stream.Batch{Events: []stream.Event{ev}, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Finish(tr); err != nil {
		t.Fatal(err)
	}
	res, err := decodeTP(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Slices {
		got = append(got, fmt.Sprintf("%s %d+%d", s.Name, s.TS-1000_000, s.Dur))
	}
	if want := "a.B.c 5000+0, a.B.d 2000+1000, a.B.c 6000+3000"; strings.Join(got, ", ") != want || len(res.Problems) != 0 {
		t.Errorf("slices %q, want %q; problems %q", got, want, res.Problems)
	}
}
