package perfetto_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/perfetto"
)

// offCPUTrace is a dual-clock trace (records: tid, action, method, thread
// CPU µs, wall µs) whose slices' exclusive off-CPU times are worked out by
// hand: main's sleep takes 10 ms of wall time and 1 ms of CPU (9000 µs
// off the CPU); spin 3 ms of wall time and 4 ms of CPU (clamped at 0: no
// arg); main itself 2000 µs of wall time and 1500 of CPU outside its
// callees (500); the worker's sleep 2000 and 500 (1500).
const offCPUTrace = tracegen.OffCPUText

// TestOffCPUArg reads the slices' debug.offcpu_us back with
// trace_processor, which merges the args of a slice's end event into the
// slice, from the fast path's output and the reference path's.
func TestOffCPUArg(t *testing.T) {
	tp := traceProcessorShell(t)
	tr, err := tracegen.ParseText(offCPUTrace)
	if err != nil {
		t.Fatal(err)
	}
	data := tr.Regular()
	query := filepath.Join(t.TempDir(), "offcpu.sql")
	if err := os.WriteFile(query, []byte(`select t.name, s.name, s.depth, a.display_value
from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid)
left join args a on a.arg_set_id = s.arg_set_id and a.key = 'debug.offcpu_us'
order by s.ts, s.depth;`), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`"main","a.App.main",0,"500"`,
		`"main","a.Io.sleep",1,"9000"`,
		`"main","a.Calc.spin",1,"[NULL]"`,
		`"worker","a.Io.sleep",0,"1500"`,
	}
	for _, opt := range []perfetto.Options{{}, perfetto.Reference(perfetto.Options{})} {
		var out bytes.Buffer
		if _, err := convert.Run(openData(t, "offcpu.trace", data), convert.Options{}, convert.Timeline(perfetto.New(&out, opt), nil)); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "offcpu.pftrace")
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(tp, "-q", query, file)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", tp, err, stderr.Bytes())
		}
		got := strings.Split(strings.TrimSpace(stdout.String()), "\n")[1:] // the header
		if !slices.Equal(got, want) {
			t.Errorf("slices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
