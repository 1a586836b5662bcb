//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
)

// Output amplification (issue 37): a small trace whose stacks are deep on
// many threads, or at every level of a deep nest, must not make any
// command write gigabytes. At default settings, every command writes at
// most amplifyOutPerByte bytes a byte of input (pprof and folded stacks
// refuse the traces whose stacks hold more frames than the stack budget
// allows, naming a --max-depth that fits), and allocates at most
// amplifyAllocBase + amplifyAllocPerByte a byte: the allocation budget
// stands for the CPU time, which a shared machine cannot time.
const (
	amplifyOutPerByte   = 64
	amplifyAllocBase    = 64 << 20
	amplifyAllocPerByte = 64
	// amplifyNamedOut bounds what pprof and folded write at the depth a
	// refusal names: issue 37's bound for these inputs.
	amplifyNamedOut = 500 << 20
)

// amplifyCommands are the commands TestAmplification runs, IN the input
// and OUT/ the output folder; each writes to standard output what it
// does not write to a file.
var amplifyCommands = [][]string{
	{"info", "IN"},
	{"dump", "IN"},
	{"pprof", "-o", "-", "IN"},
	{"perfetto", "-o", "-", "IN"},
	{"speedscope", "-o", "-", "IN"},
	{"folded", "IN"},
	{"top", "IN"},
	{"calls", "IN", "Leaf|Runaway.c|Looper"},
	{"diff", "IN", "IN"},
	{"startup", "IN"},
	{"convert", "--pprof", "OUT/c.pb.gz", "--perfetto", "OUT/c.perfetto-trace", "--speedscope", "OUT/c.speedscope.json", "--folded", "-", "IN"},
}

// TestAmplification runs every command at default settings on a runaway
// recursion (one thread 100,000 frames deep, 1.4 MB), on a trace whose
// 101,194 orphan exits nest thousands deep on 24 threads (3.8 MB), and on
// a corpus trace of that size damaged by 12 bytes cut out of its records,
// which sends 190,000 records to threads that only exit (when the corpus
// is there). The runaway recursion fits the stack budget at the default
// depth limit; the two nests do not, and pprof, folded and convert refuse
// them, writing nothing, with the depth limit that fits.
func TestAmplification(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command on 6 MB of traces")
	}
	cases := []struct {
		name   string
		data   func(t *testing.T) []byte
		refuse string // the refusal of pprof, folded and convert; "" for none
	}{
		{"runaway.trace", func(*testing.T) []byte { return tracegen.Runaway(100_000).Regular() }, ""},
		{"orphan-nests.trace", func(*testing.T) []byte { return tracegen.OrphanNests(24, 101_194).Regular() },
			"the stacks hold 92,381,210 frames in all (up to 2049 deep), more than the 7,973,542 that 3,779,238 bytes of input allow a view that writes each stack whole (pprof, folded); --max-depth 599 keeps them within it"},
		{"damaged.trace", damagedCorpusTrace,
			"the stacks hold 53,403,936 frames in all (up to 2048 deep), more than the 7,989,602 that 3,795,298 bytes of input allow a view that writes each stack whole (pprof, folded); --max-depth 782 keeps them within it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.data(t)
			dir := t.TempDir()
			in := filepath.Join(dir, c.name)
			if err := os.WriteFile(in, data, 0o644); err != nil {
				t.Fatal(err)
			}
			size := int64(len(data))
			for _, cmd := range amplifyCommands {
				out := t.TempDir()
				args := make([]string, len(cmd))
				for i, a := range cmd {
					args[i] = strings.ReplaceAll(strings.ReplaceAll(a, "OUT/", out+"/"), "IN", in)
				}
				stdout, stderr := &countWriter{}, &bytes.Buffer{}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				code := run(append(args, "-q"), &env{stdin: bytes.NewReader(nil), stdout: stdout, stderr: stderr})
				runtime.ReadMemStats(&after)
				written := stdout.n
				files, _ := os.ReadDir(out)
				for _, f := range files {
					if fi, err := f.Info(); err == nil {
						written += fi.Size()
					}
				}
				alloc := int64(after.TotalAlloc - before.TotalAlloc)
				t.Logf("%s: exit %d, %d bytes written, %d allocated", cmd[0], code, written, alloc)
				refused := c.refuse != "" && (cmd[0] == "pprof" || cmd[0] == "folded" || cmd[0] == "convert")
				switch {
				case refused && (code != exitError || stderr.String() != "atrace2: "+in+": "+c.refuse+"\n" || written != 0):
					t.Errorf("%s: exit %d, %d bytes written, stderr %q; want exit 1, nothing written and %q", cmd[0], code, written, stderr, c.refuse)
				case !refused && code != exitOK:
					t.Errorf("%s: exit %d: %s", cmd[0], code, stderr)
				}
				if written > amplifyOutPerByte*size {
					t.Errorf("%s: wrote %d bytes for %d bytes of input, more than %d a byte", cmd[0], written, size, amplifyOutPerByte)
				}
				if !referenceOnly && alloc > amplifyAllocBase+amplifyAllocPerByte*size {
					t.Errorf("%s: allocated %d bytes for %d bytes of input (budget %d + %d a byte)", cmd[0], alloc, size, amplifyAllocBase, amplifyAllocPerByte)
				}
			}
			// The depth the refusal names keeps the stacks within the
			// budget: pprof and folded then write them, and the folded
			// file stays within the output bound.
			if m := regexp.MustCompile(`--max-depth (\d+) keeps them within it$`).FindStringSubmatch(c.refuse); m != nil {
				for _, cmd := range [][]string{{"pprof", "-o", "-"}, {"folded"}} {
					stdout, stderr := &countWriter{}, &bytes.Buffer{}
					args := append(append(cmd, "-q", "--max-depth", m[1]), in)
					if code := run(args, &env{stdin: bytes.NewReader(nil), stdout: stdout, stderr: stderr}); code != exitOK || stdout.n == 0 || stdout.n > amplifyNamedOut {
						t.Errorf("%v: exit %d, %d bytes written (at most %d): %s", args, code, stdout.n, amplifyNamedOut, stderr)
					}
				}
			}
		})
	}
}

// damagedCorpusTrace is a corpus trace (test1.trace, 3.8 MB, 247,266
// records) with 12 bytes cut out of its records 1,000 records in: the
// records after the cut are read 2 bytes off, which gives 190,158 orphan
// exits on 28 threads, most of them nesting past the depth limit.
func damagedCorpusTrace(t *testing.T) []byte {
	data, err := os.ReadFile(filepath.Join(testutil.CorpusDir(t, ""), "zhkl0228-TraceReader__test1.trace"))
	if err != nil {
		t.Fatal(err)
	}
	// The data header ("SLOW", then its own length) starts the records.
	i := bytes.Index(data, []byte("SLOW"))
	if i < 0 || i+8 > len(data) {
		t.Fatal("test1.trace has no data header")
	}
	cut := i + int(data[i+6]) + int(data[i+7])<<8 + 14*1000
	return append(data[:cut:cut], data[cut+12:]...)
}
