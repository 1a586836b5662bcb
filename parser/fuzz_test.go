package parser_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// balanceChecker fails on any event that breaks the stream's guarantees.
type balanceChecker struct {
	t     *stream.Trace
	depth []int32
	wall  []int64
	cpu   []int64
}

func (c *balanceChecker) Begin(t *stream.Trace) error {
	c.t = t
	c.depth = make([]int32, len(t.Threads))
	c.wall = make([]int64, len(t.Threads))
	c.cpu = make([]int64, len(t.Threads))
	return nil
}

func (c *balanceChecker) event(ev *stream.Event) error {
	th := ev.Thread
	if ev.Kind == stream.End {
		c.depth[th]--
	}
	if ev.Depth != c.depth[th] || ev.Wall < c.wall[th] || ev.CPU < c.cpu[th] || ev.Wall > c.t.WallEnd {
		panic("invariant violation: unbalanced or backwards event stream")
	}
	if ev.Kind == stream.Begin {
		c.depth[th]++
	}
	c.wall[th], c.cpu[th] = ev.Wall, ev.CPU
	return nil
}

func (c *balanceChecker) Finish(*stream.Trace) error {
	for _, d := range c.depth {
		if d != 0 {
			panic("invariant violation: frames left open")
		}
	}
	return nil
}

// FuzzReader reads any input as a trace and runs the converter over it: no
// input may panic, and whatever converts must be a balanced stream.
func FuzzReader(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/*.trace")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	for _, v := range variants() {
		f.Add(v.write(tracegen.Small(v.version, v.clock, "art")))
	}
	f.Add(tracegen.Small(3, "dual", "dalvik").Streaming(tracegen.StreamOptions{NoSummary: true}))
	late := tracegen.Small(3, "dual", "art").Streaming(tracegen.StreamOptions{DefineAfterUse: true})
	f.Add(late)
	f.Add(append(bytes.Clone(late), late[32:]...)) // two summaries
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := parser.NewFile("fuzz", bytes.NewReader(data), int64(len(data)), parser.Options{})
		if err != nil {
			checkReadOnce(t, data, nil, nil)
			return
		}
		defer pf.Close()
		r := pf.NewReader()
		var rec parser.Record
		var one []parser.Record
		for {
			if err := r.ReadRecord(&rec); err != nil {
				if err != io.EOF {
					t.Fatalf("ReadRecord after a good header: %v", err)
				}
				break
			}
			one = append(one, rec)
		}
		// The batch decoder must read the same records, whatever the
		// batch size (7 cuts batches at odd places).
		r = pf.NewReader()
		batch := make([]parser.Record, 7)
		var many []parser.Record
		for {
			n, err := r.ReadRecords(batch)
			many = append(many, batch[:n]...)
			if err != nil {
				if err != io.EOF {
					t.Fatalf("ReadRecords after a good header: %v", err)
				}
				break
			}
		}
		if len(one) != len(many) {
			t.Fatalf("ReadRecord read %d records, ReadRecords %d", len(one), len(many))
		}
		for i := range one {
			if one[i] != many[i] {
				t.Fatalf("record %d: ReadRecord %v, ReadRecords %v", i, one[i], many[i])
			}
		}
		checkReadOnce(t, data, pf.Header, one)
		convert.Run(pf, convert.Options{}, convert.Output{Exporter: &balanceChecker{}})
	})
}

// checkReadOnce reads data without a streaming scan: the converter must
// give a balanced stream, and the records, tables and the converter's
// tables and counts must be the scanned ones (scanned, want; nil when the
// scan failed). Two kinds of file ART does not write read differently, as
// Options.SkipStreamingScan says: a record that runs into the summary, and
// a summary before the last, after which only the records must agree, and
// only when both summaries give the same clock.
func checkReadOnce(t *testing.T, data []byte, scanned *parser.Header, want []parser.Record) {
	lf, err := parser.NewFile("fuzz", bytes.NewReader(data), int64(len(data)), parser.Options{SkipStreamingScan: true})
	if err != nil {
		return
	}
	convert.Run(lf, convert.Options{}, convert.Output{Exporter: &balanceChecker{}})
	lf.Close()
	_, h, got, _, err := readOnce(t, data, 7)
	if err != nil || scanned == nil || h.LostBytes != 0 {
		return
	}
	early := false
	for _, w := range scanned.Warnings {
		early = early || strings.Contains(w, "after the streaming summary")
	}
	switch {
	case early && (h.DataEnd != scanned.DataEnd || h.Records != scanned.Records):
		t.Fatalf("two summaries: read once, data end %d and %d records; scanned %d and %d",
			h.DataEnd, h.Records, scanned.DataEnd, scanned.Records)
	case early && h.Clock != scanned.Clock:
		return
	case !early && !sameTables(h, scanned):
		t.Fatalf("read once, the header\n%+v\ndiffers from the scanned one\n%+v", h, scanned)
	}
	if len(got) != len(want) {
		t.Fatalf("read once: %d records, scanned %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("record %d: read once %v, scanned %v", i, got[i], want[i])
		}
	}
	if !early {
		sameAnalysis(t, data)
	}
}

// sameAnalysis compares the converter's first pass over data, read once
// and scanned: its tables and repair counts.
func sameAnalysis(t *testing.T, data []byte) {
	var traces [2]*stream.Trace
	for i, skip := range []bool{false, true} {
		f, err := parser.NewFile("fuzz", bytes.NewReader(data), int64(len(data)), parser.Options{SkipStreamingScan: skip})
		if err != nil {
			t.Fatalf("read once %v: %v", skip, err)
		}
		traces[i], err = convert.Analyze(f, convert.Options{})
		f.Close()
		if err != nil {
			t.Fatalf("read once %v: %v", skip, err)
		}
	}
	a, b := traces[0], traces[1]
	if !reflect.DeepEqual(a.Threads, b.Threads) || !reflect.DeepEqual(a.Frames, b.Frames) || a.Stats != b.Stats || a.WallEnd != b.WallEnd {
		t.Fatalf("analysis read once differs: %d threads, %d frames, %+v; scanned %d, %d, %+v",
			len(b.Threads), len(b.Frames), b.Stats, len(a.Threads), len(a.Frames), a.Stats)
	}
}

func (x *balanceChecker) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
