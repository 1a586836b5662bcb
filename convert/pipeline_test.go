package convert_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// readTxtarTrace reads the trace of a testdata/convert case.
func readTxtarTrace(t *testing.T, file string) *tracegen.Trace {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "trace" {
			tr, err := tracegen.ParseText(string(f.Data))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			return tr
		}
	}
	t.Fatalf("%s has no trace", file)
	return nil
}

// collector keeps every event as it came.
type collector struct{ evs []stream.Event }

func (c *collector) Begin(*stream.Trace) error    { return nil }
func (c *collector) event(ev *stream.Event) error { c.evs = append(c.evs, *ev); return nil }
func (c *collector) Finish(*stream.Trace) error   { return nil }

// TestPipelineEqualsSerial: decoding, the policy and the exporters on
// goroutines of their own (the default with two CPUs) must give the
// trace's tables, clocks and repair counts, and the events, that one
// goroutine gives: on the policy cases, the sample, many threads, one
// thread, a cut file, streaming files with and without their summary, ART
// V2 and the corpus.
func TestPipelineEqualsSerial(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	large := tracegen.Large(tracegen.LargeOptions{Bytes: 3 << 20, Threads: 40, Methods: 500, Seed: 11})
	paths := map[string]string{
		"sample":        testutil.SampleTrace(t),
		"policy":        testutil.PolicyTrace(t),
		"large":         write("large.trace", large.Regular()),
		"large-cut":     write("cut.trace", large.Regular()[:2<<20+7]),
		"one-thread":    write("one.trace", tracegen.Large(tracegen.LargeOptions{Bytes: 1 << 20, Threads: 1, Seed: 12}).Regular()),
		"streaming":     write("streaming.trace", large.Streaming(tracegen.StreamOptions{SummaryThreads: true})),
		"no-summary-v3": write("nosummary.trace", large.Streaming(tracegen.StreamOptions{NoSummary: true})),
		"art-v2":        write("v2.trace", large.V2(tracegen.V2Options{})),
	}
	cases, _ := filepath.Glob("../testdata/convert/*.txtar")
	for _, c := range cases {
		paths["policy/"+filepath.Base(c)] = write(filepath.Base(c)+".trace", readTxtarTrace(t, c).Regular())
	}
	for _, c := range testutil.CorpusTraces(t) {
		paths["corpus/"+filepath.Base(c)] = c
	}
	twoProcs(t)
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			for _, kind := range pipeKinds {
				pipelineEqualsSerial(t, path, kind)
			}
		})
	}
}

// pipeKinds are the ways an exporter takes the stream (convert.Output):
// two reads, one read (an aggregate), and one read that a timeline can
// take back (a second read at an orphan exit).
var pipeKinds = []string{"two reads", "aggregate", "timeline"}

// pipeExporter is an exporter of each of pipeKinds: it keeps the events,
// and counts its Begin and Finish calls.
type pipeExporter struct {
	collector
	kind            string
	begins, finises int
	failAt          int // the event whose delivery fails, counted from 1; 0 never
	seen            int
	next, data      []byte // with next, the trace it serves changes at Begin
}

func (x *pipeExporter) Begin(*stream.Trace) error {
	x.begins++
	if x.next != nil {
		x.data = x.next
	}
	return nil
}

func (x *pipeExporter) Finish(*stream.Trace) error { x.finises++; return nil }

func (x *pipeExporter) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if x.seen++; x.seen == x.failAt {
			return errors.New("disk full")
		}
		x.evs = append(x.evs, evs[i])
	}
	return nil
}

func (x *pipeExporter) ReadAt(b []byte, off int64) (int, error) {
	return bytes.NewReader(x.data).ReadAt(b, off)
}

func (x *pipeExporter) output() convert.Output {
	switch x.kind {
	case "aggregate":
		return convert.Aggregate(x)
	case "timeline":
		return convert.Timeline(x, func() error { x.evs = nil; return nil })
	}
	return convert.Output{Exporter: x}
}

// twoProcs makes the test's runs use the pipeline: it is off with one CPU.
func twoProcs(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(n) })
	}
}

// pipelineEqualsSerial checks that the pipeline gives what one goroutine
// gives, for the trace at path and an exporter of the kind.
func pipelineEqualsSerial(t *testing.T, path, kind string) {
	t.Helper()
	var traces [2]*stream.Trace
	var events [2][]stream.Event
	for i, serial := range []bool{true, false} {
		f, err := parser.Open(path, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := &pipeExporter{kind: kind}
		traces[i], err = convert.Run(f, convert.Serial(convert.Options{}, serial), c.output())
		f.Close()
		if err != nil {
			t.Fatalf("%s, serial %v: %v", kind, serial, err)
		}
		if c.finises != 1 {
			t.Errorf("%s, serial %v: %d calls of Finish", kind, serial, c.finises)
		}
		events[i] = c.evs
	}
	{
		{
			one, two := traces[0], traces[1]
			if !reflect.DeepEqual(one.Threads, two.Threads) || !reflect.DeepEqual(one.Frames, two.Frames) {
				t.Errorf("%s: tables differ: %d threads and %d frames serial, %d and %d pipelined",
					kind, len(one.Threads), len(one.Frames), len(two.Threads), len(two.Frames))
			}
			if one.Stats != two.Stats || one.WallEnd != two.WallEnd || one.Sampling != two.Sampling {
				t.Errorf("%s: stats %+v wall end %d sampling %+v;\npipelined %+v %d %+v",
					kind, one.Stats, one.WallEnd, one.Sampling, two.Stats, two.WallEnd, two.Sampling)
			}
			if !reflect.DeepEqual(events[0], events[1]) {
				t.Errorf("%s: %d events serial, %d pipelined, not the same", kind, len(events[0]), len(events[1]))
			}
			if len(events[0]) == 0 {
				t.Errorf("%s: no events: the case tests nothing", kind)
			}
		}
	}
}

// TestPipelineErrorsEqualSerial: a run that fails ends with the error one
// goroutine gives, never calls Finish, and leaves no goroutine behind: an
// exporter that fails at its first event, at the edges of the pipeline's
// batches and at its last event; a read that fails in the middle of the
// file; and a trace that changes between two reads.
func TestPipelineErrorsEqualSerial(t *testing.T) {
	twoProcs(t)
	large := tracegen.Large(tracegen.LargeOptions{Bytes: 3 << 20, Threads: 40, Methods: 500, Seed: 11})
	data := large.Regular()
	changed := *large
	changed.Records = slices.Clone(large.Records)
	changed.Records[len(changed.Records)*2/3].Thread = 9999 // a thread the first read did not meet
	const batch = 1 << 15                                   // pipeBatch
	type run struct {
		name   string
		data   []byte
		failAt int   // the exporter's event that fails
		cutAt  int64 // the offset where reads fail
		next   []byte
	}
	var runs []run
	for _, n := range []int{1, batch - 1, batch, batch + 1, 3*batch + 7, -1} {
		runs = append(runs, run{name: fmt.Sprintf("exporter fails at event %d", n), data: data, failAt: n})
	}
	runs = append(runs,
		run{name: "read fails mid-file", data: data, cutAt: int64(len(data)) / 2},
		run{name: "trace changed", data: data, next: changed.Regular()})
	for _, r := range runs {
		for _, kind := range pipeKinds {
			if r.next != nil && kind != "two reads" {
				continue // one read cannot see the change
			}
			if r.failAt == -1 { // the last event
				x := &pipeExporter{kind: kind}
				if _, err := convert.Run(openPipeFile(t, r.data, 0, x), convert.Serial(convert.Options{}, true), x.output()); err != nil {
					t.Fatal(err)
				}
				r.failAt = x.seen
			}
			var errs [2]string
			for i, serial := range []bool{true, false} {
				before := runtime.NumGoroutine()
				x := &pipeExporter{kind: kind, failAt: r.failAt, next: r.next}
				_, err := convert.Run(openPipeFile(t, r.data, r.cutAt, x), convert.Serial(convert.Options{}, serial), x.output())
				if err == nil {
					t.Fatalf("%s, %s, serial %v: no error", r.name, kind, serial)
				}
				errs[i] = err.Error()
				if r.next != nil && !errors.Is(err, convert.ErrChanged) {
					t.Errorf("%s, %s, serial %v: %v, want %v", r.name, kind, serial, err, convert.ErrChanged)
				}
				if x.finises != 0 {
					t.Errorf("%s, %s, serial %v: Finish called after an error", r.name, kind, serial)
				}
				if r.failAt > 0 && x.seen != r.failAt {
					t.Errorf("%s, %s, serial %v: %d events delivered, want the exporter stopped at %d", r.name, kind, serial, x.seen, r.failAt)
				}
				noLeak(t, before)
			}
			if errs[0] != errs[1] {
				t.Errorf("%s, %s: serial %q, pipelined %q", r.name, kind, errs[0], errs[1])
			}
		}
	}
}

// openPipeFile opens data as a trace whose reads fail from cutAt on (0:
// never), read through x (pipeExporter.ReadAt), so that a trace x is
// given to change (x.next) changes at x's Begin.
func openPipeFile(t *testing.T, data []byte, cutAt int64, x *pipeExporter) *parser.File {
	t.Helper()
	x.data = data
	var ra io.ReaderAt = x
	if cutAt > 0 {
		ra = failingReader{x, cutAt}
	}
	f, err := parser.NewFile("pipe.trace", ra, int64(len(data)), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// failingReader fails every read that reaches past cut.
type failingReader struct {
	io.ReaderAt
	cut int64
}

func (r failingReader) ReadAt(b []byte, off int64) (int, error) {
	if off+int64(len(b)) > r.cut {
		return 0, errors.New("input/output error")
	}
	return r.ReaderAt.ReadAt(b, off)
}

// noLeak fails the test when goroutines started since there were before
// are still running a second later.
func noLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines left running after the run", runtime.NumGoroutine()-before)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func (x *collector) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}

// goroutineExporter notes whether each batch of events came on the
// goroutine that called Run.
type goroutineExporter struct {
	collector
	caller         uint64
	onCaller, away int
}

func (x *goroutineExporter) Events(batch *stream.Batch) error {
	if goroutineID() == x.caller {
		x.onCaller++
	} else {
		x.away++
	}
	return nil
}

// goroutineID is the running goroutine's number, from the first line of
// its stack ("goroutine 7 [running]:").
func goroutineID() uint64 {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	var id uint64
	fmt.Sscanf(string(b), "goroutine %d ", &id)
	return id
}

// TestPipelineOnlyForWriters: with two CPUs and no test switch, outputs
// that are all Inline (the call tree) get the events on the caller's
// goroutine, since handing them to another core costs more than their
// light work per event; an aggregate that is not (speedscope), a
// timeline and an output of two reads get them on a goroutine of their
// own, and so do an Inline output with another that is not.
func TestPipelineOnlyForWriters(t *testing.T) {
	if convert.ReferenceOnly {
		t.Skip("the atrace2_reference build runs every exporter on the caller's goroutine")
	}
	twoProcs(t)
	data := tracegen.Large(tracegen.LargeOptions{Bytes: 3 << 20, Seed: 4}).Regular()
	for _, c := range []struct {
		kind     string
		pipeline bool
	}{{"inline aggregate", false}, {"aggregate", true}, {"timeline", true}, {"two reads", true}, {"inline and not", true}} {
		x := &goroutineExporter{caller: goroutineID()}
		var outs []convert.Output
		switch c.kind {
		case "inline aggregate":
			outs = append(outs, convert.Aggregate(x).Inlined())
		case "aggregate":
			outs = append(outs, convert.Aggregate(x))
		case "timeline":
			outs = append(outs, convert.Timeline(x, func() error { return nil }))
		case "two reads":
			outs = append(outs, convert.Output{Exporter: x})
		default:
			outs = append(outs, convert.Aggregate(x).Inlined(), convert.Aggregate(&collector{}))
		}
		f, err := parser.NewFile("t", bytes.NewReader(data), int64(len(data)), parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := convert.Run(f, convert.Options{}, outs...); err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		if x.onCaller+x.away < 2 {
			t.Fatalf("%s: %d batches, want several", c.kind, x.onCaller+x.away)
		}
		if got := x.onCaller == 0; got != c.pipeline {
			t.Errorf("%s: %d batches on the caller's goroutine and %d on another, want pipeline %v", c.kind, x.onCaller, x.away, c.pipeline)
		}
	}
}
