package pftrace_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/pftrace"
	"github.com/atrace2/atrace2/samples"
)

// TestCases reads the hand-written traces of testdata/cases (encoded with
// protoc): clocks and sequence states. Each says, in a "# want:" line,
// every sample a reader must give as tid@time (trace clock) or
// tid@time:stack, or "none"; trace_processor must agree.
func TestCases(t *testing.T) {
	files, _ := filepath.Glob("testdata/cases/*.textproto")
	if len(files) == 0 {
		t.Fatal("no cases")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".textproto"), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, line := range strings.Split(string(src), "\n") {
				if w, ok := strings.CutPrefix(line, "# want: "); ok {
					want = strings.Fields(w)
				}
			}
			data := encodeTextproto(t, file)
			got := timedSamples(t, data, strings.Contains(want[0], ":"))
			if want[0] == "none" {
				want = nil
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("samples %q, want %q", got, want)
			}
			tp := testutil.TraceProcessor(t)
			path := filepath.Join(t.TempDir(), "trace.pftrace")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			var tpGot []string
			for _, row := range testutil.TPQuery(t, tp, path, `select t.tid, ps.ts from perf_sample ps join thread t using (utid);`) {
				tpGot = append(tpGot, row[0]+"@"+row[1])
			}
			slices.Sort(tpGot)
			var wantTimes []string
			for _, w := range want {
				wt, _, _ := strings.Cut(w, ":")
				wantTimes = append(wantTimes, wt)
			}
			slices.Sort(wantTimes)
			if !slices.Equal(tpGot, wantTimes) {
				t.Fatalf("trace_processor: samples %q, want %q", tpGot, wantTimes)
			}
		})
	}
}

// timedSamples lists the samples of every process as tid@time, with
// ":stack" when withStack, sorted; none when the trace has none.
func timedSamples(t *testing.T, data []byte, withStack bool) []string {
	t.Helper()
	p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{})
	var ns *pftrace.NoSamplesError
	if errors.As(err, &ns) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, proc := range p.Processes {
		q, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{Select: samples.Select{Process: strconv.FormatInt(proc.PID, 10), Timeline: true}})
		if err != nil {
			t.Fatal(err)
		}
		it := q.Timeline.Iter()
		for s, ok := it.Next(); ok; s, ok = it.Next() {
			x := strconv.FormatInt(q.Threads[s.Thread].TID, 10) + "@" + strconv.FormatInt(q.StartNanos+s.Time, 10)
			if withStack {
				x += ":" + stackString(q, &q.Samples[s.Sample])
			}
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}
