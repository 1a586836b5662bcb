package convert_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
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
func (c *collector) Finish() error                { return nil }

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
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			var traces [2]*stream.Trace
			var events [2][]stream.Event
			for i, serial := range []bool{true, false} {
				f, err := parser.Open(path, parser.Options{})
				if err != nil {
					t.Fatal(err)
				}
				c := &collector{}
				traces[i], err = convert.Run(f, convert.Serial(convert.Options{}, serial), output(c))
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				events[i] = c.evs
			}
			one, two := traces[0], traces[1]
			if !reflect.DeepEqual(one.Threads, two.Threads) || !reflect.DeepEqual(one.Frames, two.Frames) {
				t.Errorf("tables differ: %d threads and %d frames serial, %d and %d pipelined",
					len(one.Threads), len(one.Frames), len(two.Threads), len(two.Frames))
			}
			if one.Stats != two.Stats || one.WallEnd != two.WallEnd || one.Sampling != two.Sampling {
				t.Errorf("stats %+v wall end %d sampling %+v;\npipelined %+v %d %+v",
					one.Stats, one.WallEnd, one.Sampling, two.Stats, two.WallEnd, two.Sampling)
			}
			if !reflect.DeepEqual(events[0], events[1]) {
				t.Errorf("%d events serial, %d pipelined, not the same", len(events[0]), len(events[1]))
			}
			if len(events[0]) == 0 {
				t.Error("no events: the case tests nothing")
			}
		})
	}
}

func (x *collector) Events(evs []stream.Event) error {
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
