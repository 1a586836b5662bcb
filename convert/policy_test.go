package convert_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// recorder renders the stream one line per event, for comparison with
// hand-written expectations: "<thread> <indent><kind><marks> <name> wall= cpu=".
// Marks: * synthetic, ~ implicit, ! unwound, | cut by a window.
type recorder struct {
	t     *stream.Trace
	b     *stream.Batch // the batch being taken, whose tables name the events
	lines []string
	depth map[stream.ThreadIndex]int
}

func (r *recorder) Begin(t *stream.Trace) error {
	r.t, r.depth = t, map[stream.ThreadIndex]int{}
	return nil
}

func (r *recorder) event(ev *stream.Event) error {
	d := r.depth[ev.Thread]
	if ev.Kind == stream.End {
		d--
	}
	if int(ev.Depth) != d {
		return fmt.Errorf("event depth %d, stack depth %d", ev.Depth, d)
	}
	marks := ""
	if ev.Flags&stream.Synthetic != 0 {
		marks += "*"
	}
	if ev.Flags&stream.Implicit != 0 {
		marks += "~"
	}
	if ev.Flags&stream.Unwound != 0 {
		marks += "!"
	}
	if ev.Flags&stream.Cut != 0 {
		marks += "|"
	}
	wall, cpu := "-", "-"
	if r.t.HasWall {
		wall = fmt.Sprint(ev.Wall / 1000)
	}
	if r.t.HasCPU {
		cpu = fmt.Sprint(ev.CPU / 1000)
	}
	r.lines = append(r.lines, fmt.Sprintf("%s %s%s%s %s wall=%s cpu=%s", r.b.Threads[ev.Thread].Name,
		strings.Repeat(". ", int(ev.Depth)), ev.Kind, marks, r.b.Frames[ev.Frame].Name, wall, cpu))
	if ev.Kind == stream.Begin {
		d++
	}
	r.depth[ev.Thread] = d
	return nil
}

func (r *recorder) Finish(*stream.Trace) error {
	for th, d := range r.depth {
		if d != 0 {
			return fmt.Errorf("thread %d ends at depth %d", th, d)
		}
	}
	return nil
}

// rewindable is a recorder that can take back what it recorded, as the
// Perfetto exporter can: convert.Run reads the trace once for it unless it
// meets an orphan exit. The recorder reads the batch's tables on every
// event, where a timeline finds the names it writes (stream.Batch).
type rewindable struct {
	recorder
	begins, rewinds, finishes int
}

func (r *rewindable) Begin(t *stream.Trace) error  { r.begins++; return r.recorder.Begin(t) }
func (r *rewindable) Finish(t *stream.Trace) error { r.finishes++; return r.recorder.Finish(t) }
func (r *rewindable) canRewind() bool              { return true }
func (r *rewindable) rewind() error                { r.rewinds++; r.recorder = recorder{}; return nil }

// convertBytes writes data to a file and runs the converter over it.
func convertBytes(t *testing.T, data []byte, opt convert.Options) (*recorder, *stream.Trace, error) {
	t.Helper()
	rec := &recorder{}
	tr, err := convertBytesTo(t, data, opt, rec)
	return rec, tr, err
}

// convertBytesTo writes data to a file and runs the converter over it into
// exp.
func convertBytesTo(t *testing.T, data []byte, opt convert.Options, exp stream.Exporter) (*stream.Trace, error) {
	t.Helper()
	return openBytesTo(t, data, parser.Options{}, opt, exp)
}

// openBytesTo is convertBytesTo with the parser's options.
func openBytesTo(t *testing.T, data []byte, popt parser.Options, opt convert.Options, exp stream.Exporter) (*stream.Trace, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "case.trace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := parser.Open(path, popt)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return convert.Run(f, opt, output(exp))
}

// TestPolicyCases runs every testdata/convert/*.txtar case: its trace, written
// as a regular file and (for v2/v3) as a streaming file, must give exactly
// the hand-computed events and repair counts. A streaming file is also read
// once (parser.Options.SkipStreamingScan), with its definitions where ART
// puts them and after the records that use them.
func TestPolicyCases(t *testing.T) {
	files, _ := filepath.Glob("../testdata/convert/*.txtar")
	if len(files) == 0 {
		t.Fatal("no cases in testdata/convert")
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		parts := map[string]string{}
		for _, f := range ar.Files {
			parts[f.Name] = string(f.Data)
		}
		tr, err := tracegen.ParseText(parts["trace"])
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		variants := map[string][]byte{"regular": tr.Regular()}
		once := parser.Options{SkipStreamingScan: true}
		popts := map[string]parser.Options{"streaming-once": once, "streaming-late": once}
		if tr.Version >= 2 {
			variants["streaming"] = tr.Streaming(tracegen.StreamOptions{SummaryThreads: true})
			variants["streaming-once"] = variants["streaming"]
			variants["streaming-late"] = tr.Streaming(tracegen.StreamOptions{SummaryThreads: true, DefineAfterUse: true})
		}
		for name, data := range variants {
			// The streaming variants run the exporter on the caller's
			// goroutine, the others on the pipeline's.
			opt := convert.Serial(convert.Options{}, name == "streaming")
			popt := popts[name]
			t.Run(filepath.Base(file)+"/"+name, func(t *testing.T) {
				rec := &recorder{}
				st, err := openBytesTo(t, data, popt, opt, rec)
				if err != nil {
					t.Fatal(err)
				}
				got := strings.Join(rec.lines, "\n") + "\n"
				if want := parts["events"]; got != want {
					t.Errorf("events:\n%s\nwant:\n%s", got, want)
				}
				if got, want := st.Stats.Summary(), strings.TrimSpace(parts["stats"]); got != want {
					t.Errorf("stats: %q, want %q", got, want)
				}
				// The same from one read, or from two after a rewind at
				// the first orphan exit.
				rw := &rewindable{}
				st, err = openBytesTo(t, data, popt, opt, rw)
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Join(rw.lines, "\n") + "\n"; got != parts["events"] {
					t.Errorf("events in one read:\n%s\nwant:\n%s", got, parts["events"])
				}
				if got, want := st.Stats.Summary(), strings.TrimSpace(parts["stats"]); got != want {
					t.Errorf("stats in one read: %q, want %q", got, want)
				}
				wantRewinds := 0
				if st.Stats.OrphanExits > 0 || name == "streaming-late" && definesUsed(tr) {
					wantRewinds = 1
				}
				// (The atrace2_reference build tag reads every trace twice.)
				if !convert.ReferenceOnly && (rw.rewinds != wantRewinds || rw.begins != 1+wantRewinds || rw.finishes != 1) {
					t.Errorf("%d orphan exits: %d rewinds, %d begins, %d finishes; want %d, %d, 1",
						st.Stats.OrphanExits, rw.rewinds, rw.begins, rw.finishes, wantRewinds, 1+wantRewinds)
				}
			})
		}
	}
}

// definesUsed reports whether a record uses a method or thread the trace
// defines.
func definesUsed(tr *tracegen.Trace) bool {
	for _, r := range tr.Records {
		for _, m := range tr.Methods {
			if m.ID == r.Method {
				return true
			}
		}
		for _, th := range tr.Threads {
			if th.ID == r.Thread {
				return true
			}
		}
	}
	return false
}

func TestStrict(t *testing.T) {
	tr, err := tracegen.ParseText("version 3\nclock dual\nthread 1 main\nmethod 0x4 a.A run ()V A.java\n1 exit 0x4 1 1\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := convertBytes(t, tr.Regular(), convert.Options{Strict: true}); err == nil ||
		!strings.Contains(err.Error(), "1 orphan exit") {
		t.Errorf("strict: err = %v, want the orphan exit named", err)
	}
	tr.Records[0].Action = tracegen.Enter
	tr.Records = append(tr.Records, tracegen.Record{Thread: 1, Method: 4, Action: tracegen.Exit, CPU: 2, Wall: 2})
	if _, _, err := convertBytes(t, tr.Regular(), convert.Options{Strict: true}); err != nil {
		t.Errorf("strict on a clean trace: %v", err)
	}
}

// failing is an exporter that fails at its n-th event.
type failing struct{ n int }

func (f *failing) Begin(*stream.Trace) error  { return nil }
func (f *failing) Finish(*stream.Trace) error { return nil }
func (f *failing) event(*stream.Event) error {
	if f.n--; f.n == 0 {
		return fmt.Errorf("disk full")
	}
	return nil
}

func TestExporterErrorStops(t *testing.T) {
	data := tracegen.Large(tracegen.LargeOptions{Bytes: 2 << 20, Threads: 3, Methods: 40, Seed: 3}).Regular()
	path := filepath.Join(t.TempDir(), "big.trace")
	os.WriteFile(path, data, 0o644)
	f, err := parser.Open(path, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, serial := range []bool{false, true} {
		if _, err = convert.Run(f, convert.Serial(convert.Options{}, serial), output(&failing{n: 10_000})); err == nil || err.Error() != "disk full" {
			t.Errorf("serial %v: err %v, want the exporter's error", serial, err)
		}
	}
}

func (x *recorder) Events(batch *stream.Batch) error {
	x.b = batch
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (x *failing) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}

// output declares a test exporter to convert.Run as what it stands for:
// one that aggregates (oneRead), a timeline whose output can be taken back
// (canRewind and rewind), or one that needs two reads.
func output(exp stream.Exporter) convert.Output {
	switch e := exp.(type) {
	case interface{ oneRead() }:
		return convert.Aggregate(exp)
	case interface {
		canRewind() bool
		rewind() error
	}:
		if e.canRewind() {
			return convert.Timeline(exp, e.rewind)
		}
	}
	return convert.Output{Exporter: exp}
}
