package perfetto_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/stream"
)

// renamedTrace is a two-thread trace whose frames a mapping renamed or
// marked synthesized, beside one it left alone and one it mapped to
// itself.
func renamedTrace() *stream.Trace {
	return &stream.Trace{
		Name: "r.trace", Process: stream.Process{StartMicros: 1000},
		HasWall: true, HasCPU: true,
		Threads: []stream.Thread{{Index: 0, ID: 5, Name: "main"}, {Index: 1, ID: 6, Name: "worker"}},
		Frames: []stream.Frame{
			{ID: 0, Name: "a.B.c", Class: "a.B", Method: "c", Signature: "()V", File: "a/B.java", Listed: true},
			{ID: 1, Name: "com.ex.Foo.bar", Class: "com.ex.Foo", Method: "bar", Signature: "(Lcom/ex/Foo;)V", File: "com/ex/Foo.kt", Listed: true,
				Obfuscated: "a.a.a", ObfuscatedSignature: "(La/a;)V"},
			{ID: 2, Name: "com.ex.Foo$$ExternalSyntheticLambda0.run", Class: "com.ex.Foo$$ExternalSyntheticLambda0", Method: "run", Listed: true,
				Obfuscated: "a.b.run", Synthesized: true},
			{ID: 3, Name: "com.ex.Kept.x", Class: "com.ex.Kept", Method: "x", Signature: "()V", Listed: true, Synthesized: true},
			// kept by the build: mapped to itself
			{ID: 4, Name: "com.ex.Kept.y", Class: "com.ex.Kept", Method: "y", Signature: "()V", Listed: true,
				Obfuscated: "com.ex.Kept.y", ObfuscatedSignature: "()V"},
		},
	}
}

// renamedEvents begins each frame more than once on each thread, so that
// the later begins would be the fast path's.
func renamedEvents() []stream.Event {
	type step struct {
		kind  stream.Kind
		th    stream.ThreadIndex
		frame stream.FrameID
		depth int32
	}
	var evs []stream.Event
	now := int64(0)
	for _, s := range []step{
		{stream.Begin, 0, 0, 0}, {stream.Begin, 0, 1, 1}, {stream.End, 0, 1, 1}, {stream.Begin, 0, 1, 1}, {stream.End, 0, 1, 1},
		{stream.Begin, 0, 2, 1}, {stream.Begin, 0, 3, 2}, {stream.Begin, 0, 4, 3}, {stream.End, 0, 4, 3}, {stream.End, 0, 3, 2},
		{stream.End, 0, 2, 1}, {stream.End, 0, 0, 0},
		{stream.Begin, 1, 1, 0}, {stream.End, 1, 1, 0}, {stream.Begin, 1, 0, 0}, {stream.Begin, 1, 1, 1}, {stream.End, 1, 1, 1},
		{stream.End, 1, 0, 0}, {stream.Begin, 0, 2, 0}, {stream.End, 0, 2, 0},
	} {
		now += 3000
		evs = append(evs, stream.Event{Kind: s.kind, Thread: s.th, Frame: s.frame, Depth: s.depth, Wall: now, CPU: now / 2})
	}
	return evs
}

// exportDirect writes tr's events with an exporter of opt, in one batch.
func exportDirect(t *testing.T, tr *stream.Trace, evs []stream.Event, opt perfetto.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	e := perfetto.New(&buf, opt)
	if err := e.Begin(tr); err != nil {
		t.Fatal(err)
	}
	if err := e.Events(&stream.Batch{Events: evs, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
		t.Fatal(err)
	}
	if err := e.Finish(tr); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// renamedArgs are the args each slice of renamedEvents must carry beside
// source.*, in the order they begin: the obfuscated name with its
// descriptor, and synthesized.
var renamedArgs = []string{
	"a.B.c:",
	"com.ex.Foo.bar: debug.obfuscated=a.a.a (La/a;)V",
	"com.ex.Foo.bar: debug.obfuscated=a.a.a (La/a;)V",
	"com.ex.Foo$$ExternalSyntheticLambda0.run: debug.obfuscated=a.b.run debug.synthesized=true",
	"com.ex.Kept.x: debug.synthesized=true",
	"com.ex.Kept.y:",
	"com.ex.Foo.bar: debug.obfuscated=a.a.a (La/a;)V",
	"a.B.c:",
	"com.ex.Foo.bar: debug.obfuscated=a.a.a (La/a;)V",
	"com.ex.Foo$$ExternalSyntheticLambda0.run: debug.obfuscated=a.b.run debug.synthesized=true",
}

// TestRenamedFrames: the slices of frames a mapping renamed carry
// debug.obfuscated, those it marks debug.synthesized, at every begin on
// every thread; the fast path writes the reference path's bytes; and a
// frame without them, or mapped to its own name, gets no arg.
func TestRenamedFrames(t *testing.T) {
	tr, evs := renamedTrace(), renamedEvents()
	out := exportDirect(t, tr, evs, perfetto.Options{})
	if ref := exportDirect(t, tr, evs, perfetto.Reference(perfetto.Options{})); !bytes.Equal(out, ref) {
		t.Fatalf("fast path: %d bytes differ from the reference path's %d", len(out), len(ref))
	}
	res, err := decodeTP(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Problems {
		t.Error("decoding:", p)
	}
	var got []string
	for _, s := range res.Slices {
		var args []string
		for k, v := range s.Args {
			// The trace has both clocks: debug.offcpu_us, checked by
			// TestPolicyCases, is no arg of the mapping's.
			if strings.HasPrefix(k, "debug.") && k != "debug.offcpu_us" {
				args = append(args, k+"="+v)
			}
		}
		slices.Sort(args)
		got = append(got, strings.TrimSpace(s.Name+": "+strings.Join(args, " ")))
	}
	if g, w := strings.Join(got, "\n"), strings.Join(renamedArgs, "\n"); g != w {
		t.Errorf("slices:\n%s\nwant:\n%s", g, w)
	}

	// Without the mapping's fields, no arg and no interned name of theirs.
	for i := range tr.Frames {
		tr.Frames[i].Obfuscated, tr.Frames[i].ObfuscatedSignature, tr.Frames[i].Synthesized = "", "", false
	}
	plain := exportDirect(t, tr, evs, perfetto.Options{})
	for _, s := range []string{"obfuscated", "synthesized", "a.a.a"} {
		if bytes.Contains(plain, []byte(s)) {
			t.Errorf("the output of unrenamed frames holds %q", s)
		}
	}
	if len(plain) >= len(out) {
		t.Errorf("unrenamed output %d bytes, renamed %d: want it smaller", len(plain), len(out))
	}
}

// TestRenamedTraceProcessor imports renamedTrace's output with the real
// trace processor (see TestTraceProcessor for ATRACE2_TP and
// ATRACE2_TRACE_PROCESSOR) and requires the args in its args table, and no
// import error.
func TestRenamedTraceProcessor(t *testing.T) {
	tp := traceProcessorShell(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "r.perfetto-trace")
	if err := os.WriteFile(file, exportDirect(t, renamedTrace(), renamedEvents(), perfetto.Options{}), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(q string) []string {
		t.Helper()
		query := filepath.Join(dir, "q.sql")
		if err := os.WriteFile(query, []byte(q), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(tp, "-q", query, file)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", tp, err, stderr.Bytes())
		}
		rows := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		return rows[1:] // the header
	}
	if stats := run(`select name, value from stats where value != 0 and severity in ('error', 'data_loss');`); len(stats) > 0 {
		t.Errorf("trace_processor stats: %q", stats)
	}
	got := run(`select s.name, a.key, a.display_value from slice s join args a using (arg_set_id) where a.key glob 'debug.*' and a.key != 'debug.offcpu_us';`)
	slices.Sort(got)
	var want []string
	for _, a := range renamedArgs {
		name, args, _ := strings.Cut(a, ": ")
		for arg := range strings.SplitSeq(args, " debug.") {
			if arg == "" {
				continue
			}
			k, v, _ := strings.Cut(strings.TrimPrefix(arg, "debug."), "=")
			want = append(want, fmt.Sprintf("%q,%q,%q", name, "debug."+k, v))
		}
	}
	slices.Sort(want)
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("trace_processor's args:\n%s\nwant:\n%s", g, w)
	}
}
