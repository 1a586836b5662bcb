package folded

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// TestTreeOrder ties the fast path to the reference path: the line tree,
// which writes the lines depth first, writes what sorting every line as a
// string writes (writeSorted of lines), and Write writes the same, on names that are prefixes of each other or hold ';' (cleaned to
// ':', which sorts just before ';'), overloads that fold into one line,
// threads of one name, an orphan frame and a later call of its method,
// the policy cases, a large trace, a stack 1,000 frames deep (which the
// line tree walks without recursion) and the corpus.
func TestTreeOrder(t *testing.T) {
	dir := t.TempDir()
	var tricky strings.Builder
	tricky.WriteString("version 3\nclock dual\nthread 1 main\nthread 2 main\nthread 3 main2\n")
	names := []string{"a.A f (I)V", "a.A f ()V", "a.A f2 ()V", "a.A fo ()V", "a.A f;x ()V", "a.A f:y ()V", "a.A f- ()V", "a.B g ()V"}
	for i, n := range names {
		f := strings.Fields(n)
		fmt.Fprintf(&tricky, "method %#x %s %s %s A.java\n", (i+1)*4, f[0], f[1], f[2])
	}
	at := 0
	for _, th := range []int{1, 2, 3} {
		for i := range names {
			for _, j := range []int{i, (i + 3) % len(names)} {
				at += 3
				fmt.Fprintf(&tricky, "%d enter %#x %d %d\n", th, (j+1)*4, at, at)
			}
			for _, j := range []int{(i + 3) % len(names), i} {
				at += 5
				fmt.Fprintf(&tricky, "%d exit %#x %d %d\n", th, (j+1)*4, at, at)
			}
		}
	}
	tr, err := tracegen.ParseText(tricky.String())
	if err != nil {
		t.Fatal(err)
	}
	// No name is shared here: an orphan frame and a later call of its
	// method (with the same callee under both) are the only lines to fold.
	orphan, err := tracegen.ParseText(`version 3
clock dual
thread 1 main
method 0x4 a.A f ()V A.java
method 0x8 a.A g ()V A.java
1 enter 0x8 1 1
1 exit 0x8 2 2
1 exit 0x4 3 3
1 enter 0x4 4 4
1 enter 0x8 5 5
1 exit 0x8 7 7
1 exit 0x4 9 9
`)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{
		"tricky": filepath.Join(dir, "tricky.trace"),
		"orphan": filepath.Join(dir, "orphan.trace"),
		"large":  filepath.Join(dir, "large.trace"),
		"deep":   filepath.Join(dir, "deep.trace"),
		"policy": testutil.PolicyTrace(t),
		"sample": testutil.SampleTrace(t),
	}
	os.WriteFile(paths["tricky"], tr.Regular(), 0o644)
	os.WriteFile(paths["orphan"], orphan.Regular(), 0o644)
	os.WriteFile(paths["large"], tracegen.Large(tracegen.LargeOptions{Bytes: 4 << 20, Threads: 5, Methods: 300, Seed: 5}).Regular(), 0o644)
	os.WriteFile(paths["deep"], tracegen.Nested(1000).Regular(), 0o644)
	for _, c := range testutil.CorpusTraces(t) {
		paths[filepath.Base(c)] = c
	}
	for name, path := range paths {
		for _, opt := range []Options{{}, {NoThread: true}} {
			t.Run(fmt.Sprintf("%s/nothread=%v", name, opt.NoThread), func(t *testing.T) {
				written, tree := run(t, path, parser.ClockUnknown, opt)
				var fast, want bytes.Buffer
				if err := newLineTree(tree, opt).write(&fast, roundMicros); err != nil {
					t.Fatal(err)
				}
				if err := writeSorted(&want, lines(tree, opt), roundMicros); err != nil {
					t.Fatal(err)
				}
				got := fast.String()
				if written != got {
					t.Errorf("Write differs from the line tree:\n%s\nwant:\n%s", clip(written), clip(got))
				}
				if got != want.String() {
					t.Errorf("depth-first lines differ from sorted lines:\n%s\nwant:\n%s", clip(got), clip(want.String()))
				}
				if name == "deep" && strings.Count(got, "\n") < 1000 {
					t.Errorf("only %d lines from the deep trace", strings.Count(got, "\n"))
				}
				if name == "tricky" && strings.Count(got, "\n") < 10 {
					t.Errorf("only %d lines: the tricky trace lost its point", strings.Count(got, "\n"))
				}
				// f: wall 0-1, 2-3 (orphan), 4-5, 7-9 = 5; g: 1-2, 5-7 = 3.
				if name == "orphan" && !opt.NoThread && got != "main (tid 1);a.A.f 5\nmain (tid 1);a.A.f;a.A.g 3\n" {
					t.Errorf("orphan trace: got %q", got)
				}
			})
		}
	}
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// failingWriter fails every write, and counts them.
type failingWriter struct{ writes int }

func (w *failingWriter) Write(b []byte) (int, error) {
	w.writes++
	return 0, errors.New("no space left on device")
}

// TestWriteStopsAtFirstError: the line tree stops walking at the first
// failed write, rather than go on making lines no one will read.
func TestWriteStopsAtFirstError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep.trace")
	os.WriteFile(path, tracegen.Nested(1000).Regular(), 0o644)
	_, tree := run(t, path, parser.ClockUnknown, Options{})
	var w failingWriter
	err := Write(&w, tree, Options{})
	if err == nil || !strings.Contains(err.Error(), "no space left") || w.writes != 1 {
		t.Errorf("%v after %d writes, want the first write's error after 1", err, w.writes)
	}
	// The first 64 KiB hold some 80 of the 1,001 lines.
	lines := 0
	err = newLineTree(tree, Options{}).write(&w, func(ns int64) int64 { lines++; return roundMicros(ns) })
	if err == nil || lines > 200 {
		t.Errorf("%d lines made, %v; want the walk to stop at the first write", lines, err)
	}
}
