//go:build unix

package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// The budgets of one command on one input of FuzzPipeline. Memory, work
// and output must grow with the input's size, never faster: a
// decompression bomb, a quadratic blow-up or a stack held per record is a
// failure. The constants leave room for what every run costs (kong's
// grammar, gzip writers, pprof's tables, a 64 KiB Perfetto chunk) and the
// factors for a small input that legitimately expands (a gzip stream, a
// trace whose 9-byte records each become a line of dump or folded).
const (
	// maxFuzzInput bounds the inputs: anything larger is skipped, so that
	// the budgets below stay small and a run stays fast.
	maxFuzzInput = 64 << 10

	// fuzzAllocBase + fuzzAllocPerByte×size bounds the bytes a command
	// allocates (runtime.MemStats.TotalAlloc): allocation, not the peak
	// heap, so a loop that allocates per record counts too.
	fuzzAllocBase    = 64 << 20
	fuzzAllocPerByte = 1024

	// fuzzOutBase + fuzzOutPerByte×size bounds the bytes a command writes,
	// to standard output and into its output files together.
	fuzzOutBase    = 1 << 20
	fuzzOutPerByte = 256

	// fuzzCPU bounds the CPU time (user and system, all threads) of one
	// command: CPU time, not wall time, because the machines that fuzz
	// are shared. fuzzWall is the hang detector.
	fuzzCPU  = 2 * time.Second
	fuzzWall = 30 * time.Second
)

// FuzzPipeline feeds any bytes to every command and exporter, as a file, on
// standard input and as the two sides of diff (all of them, or the one that
// its second argument selects: see checkPipeline). No input may panic; every
// command exits 0 or 1; an error is one line on stderr; a failed command
// leaves no output and no temporary file behind and a successful one
// exactly its outputs; and each command stays within the budgets above.
//
// The seeds are the sample trace, small generated traces of every variant,
// hprof text and ART profiles (the samples package's cases),
// gzip-wrapped ones, and Perfetto traces and simpleperf profiles of CPU
// stack samples; they run as an ordinary test in go test ./....
func FuzzPipeline(f *testing.F) {
	for _, s := range pipelineSeeds(f) {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, command uint8) {
		if len(data) > maxFuzzInput {
			t.Skip("input larger than maxFuzzInput")
		}
		checkPipeline(t, data, int(command))
	})
}

// TestPipelineFiles runs FuzzPipeline's checks on the files that
// ATRACE2_FUZZ_FILES names (a glob), such as reproducers kept outside
// testdata/fuzz; it skips when the variable is unset.
func TestPipelineFiles(t *testing.T) {
	pattern := os.Getenv("ATRACE2_FUZZ_FILES")
	if pattern == "" {
		t.Skip("ATRACE2_FUZZ_FILES is not set")
	}
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("ATRACE2_FUZZ_FILES=%s matches no file (%v)", pattern, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > maxFuzzInput {
				t.Skip("input larger than maxFuzzInput")
			}
			checkPipeline(t, data, 0)
		})
	}
}

// pipelineSeeds returns FuzzPipeline's seed corpus.
func pipelineSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	b, err := os.ReadFile(sample)
	if err != nil {
		tb.Fatal(err)
	}
	seeds = append(seeds, b)
	// One of each variant: every command costs a few fixed megabytes of
	// buffers, so the seeds are few enough to run in seconds.
	dalvik := tracegen.Small(1, "thread-cpu", "dalvik")
	wall := tracegen.Small(2, "wall", "art")
	dual := tracegen.Small(3, "dual", "art")
	seeds = append(seeds,
		dalvik.Regular(), wall.Regular(), dual.Regular(),
		dual.Streaming(tracegen.StreamOptions{SummaryThreads: true}),
		wall.Streaming(tracegen.StreamOptions{NoSummary: true, DefineAfterUse: true}),
		dual.V2(tracegen.V2Options{Layout: tracegen.V2b}),
		dual.V2(tracegen.V2Options{Layout: tracegen.V2c, Streaming: true, NoSummary: true, FlushRecords: 1}),
		wall.V2(tracegen.V2Options{Layout: tracegen.V2d, SplitRecords: 1}),
		dual.V2(tracegen.V2Options{Layout: tracegen.V2b, Hybrid: true}),
		tracegen.Random(rand.New(rand.NewPCG(21, 21)), 3, "dual").Regular())
	cases, _ := filepath.Glob("../../samples/testdata/cases/*.txtar")
	if len(cases) == 0 {
		tb.Fatal("no sampled-profile cases under samples/testdata/cases")
	}
	for _, file := range cases {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		for _, s := range ar.Files {
			if s.Name == "input" {
				seeds = append(seeds, s.Data)
			}
		}
	}
	seeds = append(seeds, gzipped(seeds[0]), gzipped(seeds[len(seeds)-1]))
	// Sampled profiles with times: Perfetto traces of each kind of
	// packet (several sequences, resets, interned data split across
	// packets, compressed packets, repairs, the trace's own
	// deobfuscation) and a simpleperf profile, plain and gzip-wrapped.
	for _, sp := range []tracegen.StackProfile{
		{Seed: 1, Samples: 200, Sequences: 2, ClearEvery: 60, SplitInterned: true, UnknownStacks: 2, Skipped: 2, StacksPerThread: 8},
		{Seed: 2, Samples: 150, Kind: tracegen.StreamingSamples, CompressEvery: 10, StacksPerThread: 8},
		{Seed: 3, Samples: 150, Kind: tracegen.StackSampleSamples, Obfuscate: true, StacksPerThread: 8},
	} {
		data, _ := sp.Perfetto()
		seeds = append(seeds, data)
	}
	spf, _ := tracegen.SimpleperfProfile{Seed: 4, Samples: 200, OffCPU: true, UnknownFiles: 2, StacksPerThread: 8}.Simpleperf()
	seeds = append(seeds, spf, gzipped(spf))
	return seeds
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write(b)
	z.Close()
	return buf.Bytes()
}

// pipelineCommand is one run of FuzzPipeline: its arguments (IN is the
// input's path, OUT/ the command's empty output folder), whether the input
// goes to standard input, the files it writes when it succeeds, and whether
// it may refuse an input as a usage error (exit 80: --clock naming a clock
// the trace lacks, convert given a sampled profile).
type pipelineCommand struct {
	args  []string
	stdin bool
	files []string
	usage bool
}

var pipelineCommands = []pipelineCommand{
	{args: []string{"info", "IN"}},
	{args: []string{"info", "-q", "--format", "json", "IN"}},
	{args: []string{"dump", "-q", "IN"}},
	{args: []string{"dump", "--clock", "wall", "-"}, stdin: true, usage: true},
	{args: []string{"pprof", "-q", "-o", "OUT/p.pb.gz", "IN"}, files: []string{"p.pb.gz"}},
	{args: []string{"perfetto", "-q", "-o", "OUT/p.perfetto-trace", "IN"}, files: []string{"p.perfetto-trace"}},
	{args: []string{"speedscope", "-q", "-o", "OUT/s.speedscope.json", "IN"}, files: []string{"s.speedscope.json"}},
	// A folded line holds its whole stack, so a folded file is up to
	// distinct stacks × depth by its format: the output budget holds
	// for a depth limit, not for the default of 10,000 (TestDeepStacks
	// covers that one).
	{args: []string{"folded", "-q", "--max-depth", "256", "-o", "OUT/f.folded", "IN"}, files: []string{"f.folded"}},
	{args: []string{"convert", "--max-depth", "256", "--pprof", "OUT/c.pb.gz", "--perfetto", "OUT/c.perfetto-trace",
		"--speedscope", "OUT/c.speedscope.json", "--folded", "OUT/c.folded", "-"}, stdin: true,
		files: []string{"c.folded", "c.pb.gz", "c.perfetto-trace", "c.speedscope.json"}, usage: true},
	{args: []string{"top", "-q", "--limit", "0", "--per-thread", "IN"}},
	{args: []string{"top", "--strict", "--format", "csv", "IN"}},
	{args: []string{"calls", "-q", "IN", "."}},
	{args: []string{"diff", "-q", "--format", "json", "IN", "-"}, stdin: true},
}

// checkPipeline runs the commands of pipelineCommands on data: every one
// when command is 0, else only the one at (command-1) modulo their number.
// The seeds run every command; a mutated selector lets the fuzzer spend an
// execution on one command, a dozen times as many executions per second.
func checkPipeline(t *testing.T, data []byte, command int) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.trace")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// Spool files (standard input, gzip) go to a folder of their own,
	// which must be empty again after every command.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	for i, c := range pipelineCommands {
		if command != 0 && i != (command-1)%len(pipelineCommands) {
			continue
		}
		out := filepath.Join(dir, fmt.Sprint("out", i))
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		args := make([]string, len(c.args))
		for j, a := range c.args {
			a = strings.ReplaceAll(a, "OUT/", out+string(filepath.Separator))
			if a == "IN" {
				a = in
			}
			args[j] = a
		}
		checkCommand(t, data, c, args, in, out, tmp)
	}
}

// checkCommand runs one command in-process and checks its exit code, its
// stderr, its output folder and its budgets.
func checkCommand(t *testing.T, data []byte, c pipelineCommand, args []string, in, out, tmp string) {
	t.Helper()
	name := strings.Join(c.args, " ")
	stdout := &countWriter{}
	stderr := &countWriter{keep: 64 << 10}
	e := &env{stdin: bytes.NewReader(nil), stdout: stdout, stderr: stderr}
	if c.stdin {
		e.stdin = bytes.NewReader(data)
	}
	type result struct {
		code  int
		panic any
		stack []byte
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{panic: r, stack: debug.Stack()}
			}
		}()
		done <- result{code: run(args, e)}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(fuzzWall):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%s: still running after %v\n%s", name, fuzzWall, buf)
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	if r.panic != nil {
		t.Fatalf("%s: panic: %v\n%s", name, r.panic, r.stack)
	}

	errText := string(stderr.buf)
	switch r.code {
	case exitOK:
		if strings.Contains(name, " -q ") && errText != "" {
			t.Fatalf("%s: exit 0 with -q printed on stderr:\n%s", name, errText)
		}
	case exitError, exitUsage:
		if r.code == exitUsage && !c.usage {
			t.Fatalf("%s: exit %d, want 0 or 1; stderr:\n%s", name, r.code, errText)
		}
		lines := strings.SplitAfter(errText, "\n")
		if len(lines) < 2 || lines[len(lines)-1] != "" || !strings.HasPrefix(lines[len(lines)-2], "atrace2: ") {
			t.Fatalf("%s: exit %d without a last line \"atrace2: error\" on stderr:\n%q", name, r.code, errText)
		}
		if strings.Contains(name, " -q ") && len(lines) != 2 {
			t.Fatalf("%s: exit %d with -q printed more than one line on stderr:\n%s", name, r.code, errText)
		}
	default:
		t.Fatalf("%s: exit %d, want 0, 1 or (for a refused input) 80; stderr:\n%s", name, r.code, errText)
	}

	// A failed command leaves nothing; a successful one its outputs and
	// nothing else. The spool folder is empty either way.
	var want []string
	if r.code == exitOK {
		want = c.files
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	written := stdout.n
	for _, en := range entries {
		got = append(got, en.Name())
		if fi, err := en.Info(); err == nil {
			written += fi.Size()
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: exit %d left %q in its output folder, want %q; stderr:\n%s", name, r.code, got, want, errText)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Fatalf("%s: exit %d left %d files in TMPDIR, such as %s", name, r.code, len(entries), entries[0].Name())
	}
	for _, en := range entries {
		os.Remove(filepath.Join(out, en.Name()))
	}

	size := int64(len(data))
	overrun := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format, args...)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; !referenceOnly && alloc > fuzzAllocBase+fuzzAllocPerByte*uint64(size) {
		overrun("%s: allocated %d bytes for a %d-byte input (budget %d + %d per byte); exit %d, stderr:\n%s",
			name, alloc, size, fuzzAllocBase, fuzzAllocPerByte, r.code, errText)
	}
	if written > fuzzOutBase+fuzzOutPerByte*size {
		overrun("%s: wrote %d bytes for a %d-byte input (budget %d + %d per byte)", name, written, size, fuzzOutBase, fuzzOutPerByte)
	}
	if !referenceOnly && cpu > fuzzCPU {
		overrun("%s: took %v of CPU for a %d-byte input (budget %v); exit %d", name, cpu, size, fuzzCPU, r.code)
	}
}

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countWriter counts what is written and keeps the first keep bytes.
type countWriter struct {
	n    int64
	keep int
	buf  []byte
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if room := w.keep - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
