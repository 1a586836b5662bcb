//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/internal/units"
)

// Output amplification (issue 37): a small trace whose stacks are deep on
// many threads, or at every level of a deep nest, must not make any
// command write gigabytes. At default settings, every command writes at
// most amplifyOutPerByte bytes a byte of input (pprof and folded stacks
// refuse the traces whose stacks hold more frames, or names of more
// bytes, than the stack budget allows, naming a --max-depth that fits),
// and allocates at most
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
			"the stacks hold 92,381,210 frames in all (up to 2049 deep), more than the 7,973,542 that 3,779,238 bytes of input allow a view that writes each stack whole (pprof, folded), and their names take 1,848,570,080 bytes, more than the 510,306,688 allowed; --max-depth 599 keeps them within it"},
		{"damaged.trace", damagedCorpusTrace,
			"the stacks hold 53,403,936 frames in all (up to 2048 deep), more than the 7,989,602 that 3,795,298 bytes of input allow a view that writes each stack whole (pprof, folded), and their names take 1,492,055,388 bytes, more than the 511,334,528 allowed; --max-depth 782 keeps them within it"},
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

// runCounted runs atrace2 with args (-q added), its standard output
// counted and the first keep bytes of it kept.
func runCounted(args []string, keep int) (code int, stdout *countWriter, stderr string) {
	stdout, errs := &countWriter{keep: keep}, &bytes.Buffer{}
	code = run(append(args, "-q"), &env{stdin: bytes.NewReader(nil), stdout: stdout, stderr: errs})
	return code, stdout, errs.String()
}

// writeTemp writes data to a file named name in a new temporary folder.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fittingNames is the largest depth limit up to deepest at which the
// names of the stacks take at most budget bytes, names(d) at limit d.
func fittingNames(budget int64, deepest int, names func(d int) int64) int {
	fit := 0
	for d := 1; d <= deepest; d++ {
		if names(d) <= budget {
			fit = d
		}
	}
	return fit
}

// TestNameBudget: the stack budget counts the bytes of the names the
// views write, not only the frames. One thread ("main") recursing 1,000
// deep through one method whose class name is 1,000 bytes long holds
// 500,500 frames, within the frame budget, but folded stacks would write
// a line per level holding every name above it, 500 MB: pprof and folded
// refuse it, naming the largest depth whose names fit. Computed here from
// the shape: at limit d, the lines of depths 1 to d (the frames below fold
// into the frame at d, which holds their time).
func TestNameBudget(t *testing.T) {
	const depth, classLen = 1000, 1000
	b := tracegen.NewBuilder(tracegen.Trace{Version: 3, Clock: "dual", VM: "art"})
	main := b.Thread(1, "main")
	m := b.Method("a."+strings.Repeat("A", classLen), "m", "()V", "A.java")
	for range depth {
		main.Enter(m)
		main.Advance(1, 1)
	}
	data := b.Trace().Regular()
	in := writeTemp(t, "long.trace", data)
	size := int64(len(data))
	name := int64(len("a.") + classLen + len(".m"))
	// At limit d, a line per depth from 1 to d, each the thread's name
	// and the names down to it, a separator after each.
	lines := func(d int) int64 {
		var sum int64
		for k := range int64(d) {
			sum += int64(len("main")) + 1 + (k+1)*(name+1)
		}
		return sum
	}
	names := lines(depth)
	budget := int64(1<<28 + 64*size)
	fit := fittingNames(budget, depth, lines)
	want := fmt.Sprintf("atrace2: %s: the names of the stacks take %s bytes in all (up to %d deep), more than the %s that %s bytes of input allow a view that writes each stack whole (pprof, folded); --max-depth %d keeps them within it\n",
		in, units.Count(names), depth, units.Count(budget), units.Count(size), fit)
	if fit < 2 || fit >= depth {
		t.Fatalf("the shape fits at depth %d: not a test of the budget", fit)
	}
	for _, cmd := range [][]string{{"folded"}, {"pprof", "-o", "-"}} {
		if code, out, stderr := runCounted(append(cmd, in), 0); code != exitError || out.n != 0 || stderr != want {
			t.Errorf("%v: exit %d, %d bytes written, stderr %q; want exit 1, nothing written and %q", cmd, code, out.n, stderr, want)
		}
	}
	// The depth named fits, and one more does not.
	if code, out, stderr := runCounted([]string{"pprof", "-o", "-", "--max-depth", fmt.Sprint(fit), in}, 0); code != exitOK || out.n == 0 {
		t.Errorf("pprof --max-depth %d: exit %d, %d bytes: %s", fit, code, out.n, stderr)
	}
	if code, _, stderr := runCounted([]string{"pprof", "-o", "-", "--max-depth", fmt.Sprint(fit + 1), in}, 0); code != exitError ||
		!strings.HasSuffix(stderr, fmt.Sprintf("(up to %d deep), more than the %s that %s bytes of input allow a view that writes each stack whole (pprof, folded); --max-depth %d keeps them within it\n", fit+1, units.Count(budget), units.Count(size), fit)) {
		t.Errorf("pprof --max-depth %d: exit %d, %s", fit+1, code, stderr)
	}
}

// perfettoStacks is a Perfetto trace of stacks perf samples of thread 100
// (pid 100), each stack depth frames deep: frames of two functions, whose
// names are "com.x." and "com.y." followed by nameLen X or Y, the first
// throughout but for the last 16 frames of sample i, which spell i's bits
// (a bit 1 the second function, the lowest bit outermost). 627 KB for
// 2,000-byte names, 2,048 frames and 300 stacks.
func perfettoStacks(nameLen, depth, stacks int) []byte {
	varint := func(b []byte, n uint64) []byte {
		for n >= 0x80 {
			b = append(b, byte(n)|0x80)
			n >>= 7
		}
		return append(b, byte(n))
	}
	num := func(field int, n uint64) []byte { return varint(varint(nil, uint64(field)<<3), n) }
	msg := func(field int, parts ...[]byte) []byte {
		body := bytes.Join(parts, nil)
		return append(varint(varint(nil, uint64(field)<<3|2), uint64(len(body))), body...)
	}
	interned := [][]byte{
		msg(5, num(1, 1), msg(2, []byte("com.x."+strings.Repeat("X", nameLen)))), // function names
		msg(5, num(1, 2), msg(2, []byte("com.y."+strings.Repeat("Y", nameLen)))),
		msg(6, num(1, 1), num(2, 1)), // frames
		msg(6, num(1, 2), num(2, 2)),
	}
	trace := msg(1, num(10, 1), num(13, 1), msg(12, interned...))
	for i := range stacks {
		var ids []byte
		for j := range depth {
			id := uint64(1)
			if k := j - (depth - 16); k >= 0 {
				id += uint64(i>>k) & 1
			}
			ids = varint(ids, id)
		}
		callstack := msg(7, num(1, uint64(i+1)), msg(2, ids))
		sample := msg(66, num(2, 100), num(3, 100), num(4, uint64(i+1)))
		trace = append(trace, msg(1, num(8, uint64(1_000_000+i*1000)), num(10, 1), msg(12, callstack), sample)...)
	}
	return trace
}

// TestSampledDepth: the stacks of a sampled profile take --max-depth as a
// method trace's do, and the stack budget. 300 stacks of 2,048 frames
// whose names are 2,006 bytes long, in a Perfetto trace of 627 KB, would
// make 1.2 GB of folded stacks: refused, naming the largest depth whose
// names fit (at limit d, the stacks are as many as the distinct first d
// frames of the 300: 2^(d − 2,032) below 2,041). At --max-depth 5, the
// 300 stacks are one, 5 frames deep, and 300 × 2,043 frames are folded.
func TestSampledDepth(t *testing.T) {
	const nameLen, depth, stacks = 2000, 2048, 300
	data := perfettoStacks(nameLen, depth, stacks)
	in := writeTemp(t, "deep.perfetto-trace", data)
	size := int64(len(data))
	name := int64(len("com.x.") + nameLen)
	thread := int64(len("thread 100"))
	budget := int64(1<<28 + 64*size)
	fit := fittingNames(budget, depth, func(d int) int64 {
		count := int64(1)
		if k := d - (depth - 16); k > 0 {
			count = min(stacks, int64(1)<<k)
		}
		return count * (thread + 1 + int64(d)*(name+1))
	})
	want := fmt.Sprintf("atrace2: %s: the names of the stacks take %s bytes in all (up to %d deep), more than the %s that %s bytes of input allow a view that writes each stack whole (pprof, folded); --max-depth %d keeps them within it\n",
		in, units.Count(stacks*(thread+1+depth*(name+1))), depth, units.Count(budget), units.Count(size), fit)
	// speedscope writes the evented profile of a Perfetto trace's timeline:
	// a frame per change of stack, not checked.
	for _, cmd := range [][]string{{"folded"}, {"pprof", "-o", "-"}} {
		if code, out, stderr := runCounted(append(cmd, in), 0); code != exitError || out.n != 0 || stderr != want {
			t.Errorf("%v: exit %d, %d bytes written, stderr %q; want exit 1, nothing written and %q", cmd, code, out.n, stderr, want)
		}
	}
	if code, out, stderr := runCounted([]string{"folded", "--max-depth", fmt.Sprint(fit), in}, 0); code != exitOK || out.n == 0 {
		t.Errorf("folded --max-depth %d: exit %d, %d bytes: %s", fit, code, out.n, stderr)
	}

	x := "com.x." + strings.Repeat("X", nameLen)
	wantLine := "thread 100 (tid 100);" + strings.Repeat(x+";", 4) + x + " 300\n"
	code, out, stderr := runCounted([]string{"folded", "--max-depth", "5", in}, 1<<20)
	if code != exitOK || string(out.buf) != wantLine || stderr != "" {
		t.Errorf("folded --max-depth 5: exit %d, %s, output %.200q; want %.200q", code, stderr, out.buf, wantLine)
	}
	// Not quiet: the repair is said as a method trace's is.
	errs := &bytes.Buffer{}
	run([]string{"folded", "--max-depth", "5", in}, &env{stdin: bytes.NewReader(nil), stdout: io.Discard, stderr: errs})
	wantRepair := fmt.Sprintf("atrace2: %s: repaired: %d frames nested deeper than the depth limit, folded into the frame at the limit (--max-depth)\n", in, stacks*(depth-5))
	if !strings.Contains(errs.String(), wantRepair) {
		t.Errorf("folded --max-depth 5 said %q; want %q", errs, wantRepair)
	}
	code, _, stderr = runCounted([]string{"folded", "--strict", "--max-depth", "5", in}, 0)
	if wantStrict := fmt.Sprintf("atrace2: %s: strict mode: the file needed repairs: %d frames nested deeper than the depth limit, folded into the frame at the limit (--max-depth)\n", in, stacks*(depth-5)); code != exitError || stderr != wantStrict {
		t.Errorf("folded --strict --max-depth 5: exit %d, %q; want %q", code, stderr, wantStrict)
	}
}
