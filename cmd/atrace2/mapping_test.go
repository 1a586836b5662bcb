package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/samples/samplegen"
)

// The --mapping cases use maps that a mapping package resolving by name
// alone and one checking descriptors resolve alike: a class line and plain
// method lines with unique names, primitive descriptors.

// minifiedTrace is a release build's trace: Looper.loop (not in the map)
// calls bind (a.b.a), which calls load (a.b.b), then onClick, which R8 did
// not rename; a worker runs load. cls is the obfuscated class, source the
// source column of its methods.
func minifiedTrace(cls, source string) *tracegen.Trace {
	b := tracegen.NewBuilder(tracegen.Trace{Version: 3, Clock: "dual", VM: "art", Start: 1_370_000_000_000_000,
		Options: []tracegen.Option{{Key: "pid", Value: "4242"}}})
	loop := b.Method("android.os.Looper", "loop", "()V", "Looper.java")
	bind := b.Method(cls, "a", "(I)V", source)
	load := b.Method(cls, "b", "()V", source)
	kept := b.Method(cls, "onClick", "()V", source)
	main := b.Thread(1, "main")
	main.Call(loop, 5, 4, func() {
		main.Call(bind, 10, 8, func() { main.Call(load, 3, 2, nil) })
		main.Call(kept, 2, 1, nil)
	})
	worker := b.Thread(2, "worker")
	worker.Call(load, 7, 6, nil)
	return b.Trace()
}

const (
	feedMap    = "# compiler: R8\ncom.example.Feed -> a.b:\n    void bind(int) -> a\n    void load() -> b\n"
	feedMapNew = "# compiler: R8\ncom.example.Feed -> c.d:\n    void bind(int) -> a\n    void load() -> b\n"
)

// mappingFiles writes the minified trace (regular and streaming), a
// rebuild whose class is c.d, the two maps, and a minified ART profile.
func mappingFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	tr := minifiedTrace("a.b", "")
	art := &samplegen.ART{Samples: 5, Methods: []samplegen.Method{
		{MethodRef: samplegen.MethodRef{Class: "a.b", Name: "a", Params: []string{"I"}, Return: "V"}, Count: 3, Size: 20},
		{MethodRef: samplegen.MethodRef{Class: "android.os.Looper", Name: "loop", Return: "V"}, Count: 2, Size: 40},
	}}
	files := map[string]string{}
	for name, data := range map[string][]byte{
		"app.trace":       tr.Regular(),
		"stream.trace":    tr.Streaming(tracegen.StreamOptions{}),
		"new.trace":       minifiedTrace("c.d", "").Regular(),
		"mapping.txt":     []byte(feedMap),
		"new-mapping.txt": []byte(feedMapNew),
		"app.prof":        art.Text(),
	} {
		files[name] = filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(files[name]), 0o755)
		if err := os.WriteFile(files[name], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestMappingEveryCommand: every command takes --mapping and shows the
// original names, on a regular and on a streaming trace.
func TestMappingEveryCommand(t *testing.T) {
	f := mappingFiles(t)
	out := filepath.Join(t.TempDir(), "out")
	for _, trace := range []string{f["app.trace"], f["stream.trace"]} {
		for _, c := range []struct {
			args []string
			file string // the output, when not stdout
		}{
			{[]string{"info", trace}, ""},
			{[]string{"dump", trace}, ""},
			{[]string{"pprof", "-o", out + ".pb.gz", trace}, out + ".pb.gz"},
			{[]string{"perfetto", "-o", out + ".pftrace", trace}, out + ".pftrace"},
			{[]string{"speedscope", "-o", out + ".json", trace}, out + ".json"},
			{[]string{"folded", trace}, ""},
			{[]string{"convert", "--folded", out + ".folded", trace}, out + ".folded"},
			{[]string{"top", "--wide", trace}, ""},
			{[]string{"calls", "--wide", trace, "bind"}, ""},
			{[]string{"diff", "--wide", trace, trace}, ""},
		} {
			args := append([]string{"--mapping", f["mapping.txt"]}, c.args...)
			code, stdout, stderr := runCLI(t, nil, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			got := []byte(stdout)
			if c.file != "" {
				got = mustRead(t, c.file)
				if c.args[0] == "pprof" {
					got = []byte(strings.Join(functionNames(t, got), "\n"))
				}
			}
			// Perfetto and speedscope keep the obfuscated names beside the
			// original ones (docs/outputs.md).
			keeps := c.args[0] == "perfetto" || c.args[0] == "speedscope"
			if c.args[0] != "info" && (!bytes.Contains(got, []byte("com.example.Feed.bind")) || !keeps && bytes.Contains(got, []byte("a.b.a"))) {
				t.Errorf("%v: the output does not name com.example.Feed.bind, or names a.b.a:\n%.2000s", args, got)
			}
			want := "atrace2: " + trace + ": deobfuscated with " + f["mapping.txt"] + ": 2 methods mapped, 0 by name only, 0 ambiguous, 1 class only, 1 untouched\n"
			if c.args[0] == "diff" {
				want += want
			}
			if !strings.HasSuffix(stderr, want) {
				t.Errorf("%v: stderr\n%s\nwant it to end with\n%s", args, stderr, want)
			}
		}
	}
}

func functionNames(t *testing.T, data []byte) []string {
	var names []string
	for _, fn := range parseProfile(t, data).Function {
		names = append(names, fn.Name)
	}
	return names
}

// TestMappingOutputs: the outputs of the minified trace with its map,
// computed by hand.
func TestMappingOutputs(t *testing.T) {
	f := mappingFiles(t)
	code, out, errOut := runCLI(t, nil, "folded", "-q", "--mapping", f["mapping.txt"], f["app.trace"])
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Self times in µs: loop 5, bind 10, load 3, onClick 2; worker load 7.
	want := "main (tid 1);android.os.Looper.loop 5\n" +
		"main (tid 1);android.os.Looper.loop;com.example.Feed.bind 10\n" +
		"main (tid 1);android.os.Looper.loop;com.example.Feed.bind;com.example.Feed.load 3\n" +
		"main (tid 1);android.os.Looper.loop;com.example.Feed.onClick 2\n" +
		"worker (tid 2);com.example.Feed.load 7\n"
	if out != want {
		t.Errorf("folded:\n%s\nwant\n%s", out, want)
	}

	code, out, _ = runCLI(t, nil, "info", "-q", "--format", "json", "--mapping", f["mapping.txt"], f["app.trace"])
	if code != 0 {
		t.Fatalf("info: exit %d", code)
	}
	var doc struct {
		Deobf map[string]any `json:"deobfuscation"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	wantDoc := map[string]any{"mapping": f["mapping.txt"], "mapped": 2.0, "name_only": 0.0, "ambiguous": 0.0, "class_only": 1.0, "untouched": 1.0}
	if b, w := mustJSON(doc.Deobf), mustJSON(wantDoc); b != w {
		t.Errorf("info json deobfuscation %s, want %s", b, w)
	}
	_, out, _ = runCLI(t, nil, "info", "-q", "--mapping", f["mapping.txt"], f["app.trace"])
	if want := "\nmapping     " + f["mapping.txt"] + ": 2 methods mapped, 0 by name only, 0 ambiguous, 1 class only, 1 untouched\n"; !strings.Contains(out, want) {
		t.Errorf("info text lacks %q:\n%s", want, out)
	}
	_, out, _ = runCLI(t, nil, "info", "-q", "--format", "json", f["app.trace"])
	if strings.Contains(out, "deobfuscation") {
		t.Errorf("info json without --mapping has a deobfuscation field:\n%s", out)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMappingSampled: a sampled profile's frames are named by the map too.
func TestMappingSampled(t *testing.T) {
	f := mappingFiles(t)
	code, out, errOut := runCLI(t, nil, "folded", "--mapping", f["mapping.txt"], f["app.prof"])
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "com.example.Feed.bind 3\n") || strings.Contains(out, "a.b.a") {
		t.Errorf("folded of the ART profile:\n%s", out)
	}
	summary := f["mapping.txt"] + ": 1 method mapped, 0 by name only, 0 ambiguous, 0 class only, 1 untouched"
	if want := ": deobfuscated with " + summary + "\n"; !strings.HasSuffix(errOut, want) {
		t.Errorf("stderr %q, want it to end with %q", errOut, want)
	}
	_, out, _ = runCLI(t, nil, "info", "-q", "--mapping", f["mapping.txt"], f["app.prof"])
	if want := "\nmapping   " + summary + "\n"; !strings.Contains(out, want) {
		t.Errorf("info of the ART profile lacks %q:\n%s", want, out)
	}
	_, out, _ = runCLI(t, nil, "info", "-q", "--format", "json", "--mapping", f["mapping.txt"], f["app.prof"])
	if want := `"deobfuscation": {`; !strings.Contains(out, want) {
		t.Errorf("info json of the ART profile lacks %q:\n%s", want, out)
	}
}

// TestMappingDiff: two builds, each with its own map, compare method by
// method under the original names.
func TestMappingDiff(t *testing.T) {
	f := mappingFiles(t)
	code, out, errOut := runCLI(t, nil, "diff", "-q", "--wide", "--format", "csv",
		"--old-mapping", f["mapping.txt"], "--new-mapping", f["new-mapping.txt"], f["app.trace"], f["new.trace"])
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "com.example.Feed.bind") || strings.Contains(out, "a.b.") || strings.Contains(out, "c.d.") {
		t.Errorf("diff of two builds:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		if strings.Contains(line, ",new,") || strings.Contains(line, ",gone,") {
			t.Errorf("a method only in one build: %s", line)
		}
	}
	// One map for both: the new build's class is not in it.
	_, out, _ = runCLI(t, nil, "diff", "-q", "--wide", "--mapping", f["mapping.txt"], f["app.trace"], f["new.trace"])
	if !strings.Contains(out, "c.d.a") {
		t.Errorf("diff with the old map for both:\n%s", out)
	}
	// --old-mapping alone: the new trace keeps its names.
	_, out, _ = runCLI(t, nil, "diff", "-q", "--wide", "--old-mapping", f["mapping.txt"], f["app.trace"], f["new.trace"])
	if !strings.Contains(out, "c.d.a") || !strings.Contains(out, "com.example.Feed.bind") {
		t.Errorf("diff with --old-mapping alone:\n%s", out)
	}
}

// TestMappingPprofSeveral: pprof with several traces takes one map for all.
func TestMappingPprofSeveral(t *testing.T) {
	f := mappingFiles(t)
	out := filepath.Join(t.TempDir(), "p.pb.gz")
	code, _, errOut := runCLI(t, nil, "pprof", "--mapping", f["mapping.txt"], "-o", out, f["app.trace"], f["stream.trace"])
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	names := strings.Join(functionNames(t, mustRead(t, out)), " ")
	if !strings.Contains(names, "com.example.Feed.load") || strings.Contains(names, "a.b.") {
		t.Errorf("functions %s", names)
	}
	if n := strings.Count(errOut, "deobfuscated with"); n != 2 {
		t.Errorf("%d summaries, want one per trace:\n%s", n, errOut)
	}
}

// TestMappingErrors: the usage errors exit 80, a map that cannot be read
// exits 1 with one line.
func TestMappingErrors(t *testing.T) {
	f := mappingFiles(t)
	missing := filepath.Join(t.TempDir(), "nope.txt")
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string // regexp
	}{
		{"both forms", []string{"diff", "--mapping", f["mapping.txt"], "--new-mapping", f["mapping.txt"], f["app.trace"], f["new.trace"]}, exitUsage,
			`^atrace2: --mapping names the map of both traces: give it, or --old-mapping and --new-mapping, not both\n$`},
		{"bad mismatch", []string{"info", "--mapping-mismatch", "ignore", f["app.trace"]}, exitUsage, `--mapping-mismatch must be one of`},
		{"old-mapping elsewhere", []string{"info", "--old-mapping", f["mapping.txt"], f["app.trace"]}, exitUsage, `unknown flag --old-mapping`},
		{"output over the map", []string{"pprof", "--mapping", f["mapping.txt"], "-o", f["mapping.txt"], f["app.trace"]}, exitUsage, `mapping.txt`},
		{"missing", []string{"info", "--mapping", missing, f["app.trace"]}, exitError,
			`^atrace2: mapping file ` + regexp.QuoteMeta(missing) + `: no such file or directory\n$`},
		{"missing, sampled", []string{"folded", "--mapping", missing, f["app.prof"]}, exitError,
			`^atrace2: mapping file ` + regexp.QuoteMeta(missing) + `: no such file or directory\n$`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, nil, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, errOut)
			}
			if !regexp.MustCompile(c.stderr).MatchString(errOut) {
				t.Errorf("stderr %q does not match %q", errOut, c.stderr)
			}
		})
	}
}

// TestMappingStrict: --strict passes when the map resolves every method.
func TestMappingStrict(t *testing.T) {
	f := mappingFiles(t)
	if code, _, errOut := runCLI(t, nil, "folded", "--strict", "-q", "--mapping", f["mapping.txt"], f["app.trace"]); code != 0 {
		t.Errorf("--strict with a map that resolves everything: exit %d: %s", code, errOut)
	}
}

// TestMappingID: a trace that names map ids refuses a map with another id
// (one line naming both), unless --mapping-mismatch=warn; a directory is
// searched for the map whose id the trace names.
func TestMappingID(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "app.trace")
	os.WriteFile(trace, minifiedTrace("a.b", "r8-map-id-7fe8b95").Regular(), 0o644)
	right, wrong := filepath.Join(dir, "maps", "new", "mapping.txt"), filepath.Join(dir, "maps", "old", "mapping.txt")
	for path, id := range map[string]string{right: "7fe8b95", wrong: "0123abc"} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte("# pg_map_id: "+id+"\n"+feedMap), 0o644)
	}
	code, _, errOut := runCLI(t, nil, "folded", "--mapping", wrong, trace)
	if code != exitError || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "7fe8b95") || !strings.Contains(errOut, "0123abc") {
		t.Errorf("the wrong map: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut := runCLI(t, nil, "folded", "--mapping-mismatch", "warn", "--mapping", wrong, trace)
	if code != 0 || !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "0123abc") || !strings.Contains(out, "com.example.Feed.bind") {
		t.Errorf("the wrong map with warn: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	if _, _, errOut := runCLI(t, nil, "folded", "-q", "--mapping-mismatch", "warn", "--mapping", wrong, trace); errOut != "" {
		t.Errorf("warn with -q: stderr %q", errOut)
	}
	code, out, errOut = runCLI(t, nil, "folded", "--mapping", filepath.Join(dir, "maps"), trace)
	if code != 0 || !strings.Contains(out, "com.example.Feed.bind") || !strings.Contains(errOut, "(map id 7fe8b95)") {
		t.Errorf("a directory: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	gz := filepath.Join(dir, "mapping.txt.gz")
	os.WriteFile(gz, tracegen.Gzip(mustRead(t, right)), 0o644)
	code, out, errOut = runCLI(t, nil, "folded", "--mapping", gz, trace)
	if code != 0 || !strings.Contains(out, "com.example.Feed.bind") {
		t.Errorf("a gzipped map: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
}

// TestMappingStrictMismatch: --strict fails when a method is resolved by
// name only: the map gives bind a long, the trace's descriptor an int.
func TestMappingStrictMismatch(t *testing.T) {
	f := mappingFiles(t)
	m := filepath.Join(t.TempDir(), "mapping.txt")
	os.WriteFile(m, []byte(strings.Replace(feedMap, "bind(int)", "bind(long)", 1)), 0o644)
	code, _, errOut := runCLI(t, nil, "folded", "--mapping", m, f["app.trace"])
	if code != 0 || !strings.Contains(errOut, "1 method mapped, 1 by name only,") {
		t.Errorf("without --strict: exit %d, stderr %q", code, errOut)
	}
	for _, in := range []string{f["app.trace"], f["app.prof"]} {
		code, _, errOut = runCLI(t, nil, "folded", "--strict", "--mapping", m, in)
		if code != exitError || !strings.Contains(errOut, "strict mode: the mapping resolved 1 methods by name only") {
			t.Errorf("%s with --strict: exit %d, stderr %q", in, code, errOut)
		}
	}
}

// TestMappingHint: a minified trace read without --mapping gets the hint
// once per run (pprof of two traces), and none with -q or with --mapping.
func TestMappingHint(t *testing.T) {
	f := mappingFiles(t)
	dir := t.TempDir()
	// Three app classes with short lowercase names.
	b := tracegen.NewBuilder(*minifiedTrace("a.b", "SourceFile"))
	main := b.On(1)
	for _, cls := range []string{"a.c", "b.a"} {
		main.Call(b.Method(cls, "a", "()V", "SourceFile"), 1, 1, nil)
	}
	release := filepath.Join(dir, "release.trace")
	os.WriteFile(release, b.Trace().Regular(), 0o644)
	out := filepath.Join(dir, "p.pb.gz")
	code, _, errOut := runCLI(t, nil, "pprof", "-o", out, release, release)
	if code != 0 || strings.Count(errOut, "--mapping FILE") != 1 {
		t.Errorf("exit %d, stderr %q: want the hint once", code, errOut)
	}
	for _, args := range [][]string{
		{"pprof", "-q", "-o", out, release},
		{"pprof", "--mapping", f["mapping.txt"], "-o", out, release},
		{"pprof", "-o", out, sample},
	} {
		if _, _, errOut := runCLI(t, nil, args...); strings.Contains(errOut, "--mapping FILE") {
			t.Errorf("%v: stderr %q: want no hint", args, errOut)
		}
	}
}

// TestMappingMapsNone: a map that names none of the input's classes
// (another build's, or one given to an unminified trace) gets a warning,
// besides the summary's "0 methods mapped"; one that maps some does not.
func TestMappingMapsNone(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.txt")
	os.WriteFile(other, []byte("com.other.Foo -> a.a:\n    void bar() -> a\n"), 0o644)
	code, _, errOut := runCLI(t, nil, "folded", "--mapping", other, sample)
	want := "atrace2: " + sample + ": deobfuscated with " + other + ": 0 methods mapped, 0 by name only, 0 ambiguous, 0 class only, 205 untouched\n" +
		"atrace2: " + sample + ": warning: --mapping " + other + " maps none of the trace's classes: another build's map, or the trace is not minified\n"
	if code != exitOK || !strings.HasSuffix(errOut, want) {
		t.Errorf("exit %d, stderr %q; want it to end with %q", code, errOut, want)
	}
	_, f := sampledFiles(t)
	code, _, errOut = runCLI(t, nil, "folded", "--mapping", other, f["app.hprof"])
	if code != exitOK || !strings.Contains(errOut, ": warning: --mapping "+other+" maps none of the profile's classes") {
		t.Errorf("sampled: exit %d, stderr %q; want the warning", code, errOut)
	}
	// The sample's own class, mapped: no warning.
	some := filepath.Join(dir, "some.txt")
	os.WriteFile(some, []byte("android.os.Looper -> android.os.Looper:\n    void loop() -> loop\n"), 0o644)
	if code, _, errOut := runCLI(t, nil, "folded", "--mapping", some, sample); code != exitOK || strings.Contains(errOut, "maps none") {
		t.Errorf("a map of one class: exit %d, stderr %q", code, errOut)
	}
}
