package benchdata

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"

	"github.com/atrace2/atrace2/internal/stats"
)

// corpus opens a file of the corpus's benchmark folder (androidx's own
// fixtures of its JSON writer, and a startup benchmark's two results), or
// skips the test when the corpus is absent.
func corpus(t *testing.T, name string) *File {
	t.Helper()
	f, err := Open(filepath.Join(testutil.CorpusDir(t, "benchmark"), name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCorpusMicro: androidx's Microbenchmark fixture, read by hand: two
// benchmarks of TrivialJavaBenchmark with timeNs (50 repeats) and
// allocationCount (5), no params, no profiler outputs.
func TestCorpusMicro(t *testing.T) {
	f := corpus(t, "androidx_micro-legacy-trivialbench.json")
	c := f.Context
	if c.Device != "mokey_go32" || c.Model != "32-bit Go Reference Device" || c.SDK != 34 || c.CompilationMode != "verify" ||
		c.CPULocked == nil || !*c.CPULocked || c.Fingerprint != "google/mokey_go32/mokey_go32:VanillaIceCream/MAIN/11551339:userdebug/dev-keys" {
		t.Errorf("context %+v", c)
	}
	if len(f.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks, want 2", len(f.Benchmarks))
	}
	b := &f.Benchmarks[0]
	if b.Key() != "androidx.benchmark.benchmark.TrivialJavaBenchmark#increment" || b.Params != nil || len(b.Outputs) != 0 ||
		b.RepeatIterations != 432900 || b.WarmupIterations != 43297946 || b.ThermalThrottleSleepSeconds != 0 {
		t.Errorf("benchmark %s: params %v, outputs %v, iterations %d/%d, thermal %d", b.Key(), b.Params, b.Outputs,
			b.WarmupIterations, b.RepeatIterations, b.ThermalThrottleSleepSeconds)
	}
	var names []string
	for _, m := range b.Metrics {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"allocationCount", "timeNs"}) {
		t.Fatalf("metrics %v", names)
	}
	tn := b.Metrics[1]
	// The file's median is the mean of the 25th and 26th of the 50 sorted
	// repeats; both are 5.542584892584893 here.
	if len(tn.Runs) != 50 || tn.Median != 5.542584892584893 || tn.Min != 5.52001617001617 || tn.Max != 5.658262878262878 ||
		tn.Runs[0] != 5.563728343728344 || stats.Median(tn.Runs) != tn.Median {
		t.Errorf("timeNs: %d runs, median %v min %v max %v first %v", len(tn.Runs), tn.Median, tn.Min, tn.Max, tn.Runs[0])
	}
	if a := b.Metrics[0]; len(a.Runs) != 5 || a.Median != 0 {
		t.Errorf("allocationCount %+v", a)
	}
}

// TestCorpusParamsQuirk: androidx's Macrobenchmark fixture names a test
// "startup[startup=COLD,compilation=Partial(baselineProfile=UseIfAvailable,iterations=0)]",
// whose "params" the writer split at the comma inside the parentheses
// (compilation "Partial(baselineProfile=UseIfAvailable", iterations "0)").
// Params come from the name, whole.
func TestCorpusParamsQuirk(t *testing.T) {
	f := corpus(t, "androidx_macro-legacy-trivialscrollbench.json")
	if len(f.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks", len(f.Benchmarks))
	}
	want := [][]Param{
		{{"startup", "COLD"}, {"compilation", "Partial(baselineProfile=UseIfAvailable,iterations=0)"}},
		{{"startup", "COLD"}, {"compilation", "None"}},
	}
	keys := []string{
		"androidx.benchmark.integration.macrobenchmark.TrivialStartupBenchmark#startup[startup=COLD,compilation=Partial(baselineProfile=UseIfAvailable,iterations=0)]",
		"androidx.benchmark.integration.macrobenchmark.TrivialStartupBenchmark#startup[startup=COLD,compilation=None]",
	}
	for i := range f.Benchmarks {
		b := &f.Benchmarks[i]
		if !slices.Equal(b.Params, want[i]) || b.Key() != keys[i] {
			t.Errorf("benchmark %d: params %q key %q; want %q %q", i, b.Params, b.Key(), want[i], keys[i])
		}
	}
	// timeToInitialDisplayMs of the first: two repeats, their mean.
	m := f.Benchmarks[0].Metrics[1]
	a, b := 474.123432, 481.377279
	if m.Name != "timeToInitialDisplayMs" || !slices.Equal(m.Runs, []float64{a, b}) || m.Median != 477.75035549999996 || (a+b)/2 != m.Median {
		t.Errorf("%+v", m)
	}
}

func TestNameParams(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []Param
	}{
		{"increment", nil},
		{"startup[startup=COLD,compilation=None]", []Param{{"startup", "COLD"}, {"compilation", "None"}}},
		{"a[x:1, y=[2,3],z={a,b}]", []Param{{"x", "1"}, {" y", "[2,3]"}, {"z", "{a,b}"}}},
		{"a[=1,b,c=,d=2]", []Param{{"d", "2"}}}, // the writer's rule: a name and a value, else left out
		{"a[]", nil},
		{"a[b=(1,2]", []Param{{"b", "(1,2"}}}, // an unclosed parenthesis holds the rest
		{"a]b[", nil},
	} {
		got := nameParams(tc.name)
		if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("nameParams(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	// Without brackets the file's params are used, sorted, and the key
	// names them.
	f, err := Read(strings.NewReader(`{"benchmarks":[{"className":"C","name":"n","params":{"b":"2","a":"1"},"metrics":{}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if b := f.Benchmarks[0]; b.Key() != "C#n[a=1,b=2]" || !slices.Equal(b.Params, []Param{{"a", "1"}, {"b", "2"}}) {
		t.Errorf("key %q params %q", b.Key(), b.Params)
	}
}

// TestReadErrors: each malformed input gives a FormatError at the offset
// of the problem (counted by hand), with what was expected.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{``, `offset 0 (0x0): an empty file: expected a JSON object ({)`},
		{" \n", `offset 0 (0x0): an empty file: expected a JSON object ({)`},
		{`[]`, `offset 0 (0x0): expected a JSON object ({), found '['`},
		{`{}`, `offset 0 (0x0): expected a "benchmarks" array: not a Jetpack Benchmark result (benchmarkData.json)`},
		{`{"context":{}}`, `offset 0 (0x0): expected a "benchmarks" array: not a Jetpack Benchmark result (benchmarkData.json)`},
		{`{"benchmarks":{}}`, `offset 14 (0xe): expected an array of benchmarks after "benchmarks", found '{'`},
		{`{"benchmarks":[{"name":"n"}]}`, `offset 15 (0xf): benchmarks[0]: expected a "className"`},
		{`{"benchmarks":[{"className":"C"}]}`, `offset 15 (0xf): benchmarks[0]: expected a "name"`},
		{`{"benchmarks":[{"className":"C","name":"n"}, {"className":"C","name":""}]}`, `offset 45 (0x2d): benchmarks[1]: expected a "name"`},
		// Offset 56: the value "x" of runs[0]; encoding/json's path
		// leaves out the map key t.
		{`{"benchmarks":[{"className":"C","metrics":{"t":{"runs":["x"]}},"name":"n"}]}`,
			`offset 56 (0x38): benchmarks[0].metrics.runs: expected a number, found a JSON string`},
		{`{"benchmarks":[{"className":"C","name":"n","warmupIterations":1.5}]}`,
			`offset 62 (0x3e): benchmarks[0].warmupIterations: expected an integer, found a JSON number 1.5`},
		{`{"benchmarks":[{"className":"C","name":"n","metrics":{"t":{}}}]}`, `offset 15 (0xf): benchmarks[0]: metric t: expected a median or runs`},
		{`{"benchmarks":[{"className":"C","name":"n","profilerOutputs":[{"type":"MethodTrace","label":"l","filename":"../x.trace"}]}]}`,
			`offset 15 (0xf): benchmarks[0]: profilerOutputs[0]: filename "../x.trace": expected a path inside the result's folder`},
		{`{"benchmarks":[{"className":"C","name":"n","profilerOutputs":[{"type":"MethodTrace","label":"l","filename":"/etc/x"}]}]}`,
			`offset 15 (0xf): benchmarks[0]: profilerOutputs[0]: filename "/etc/x": expected a path inside the result's folder`},
		{`{"benchmarks":[{"className":"C","name":"n","profilerOutputs":[{"type":"MethodTrace","label":"l"}]}]}`,
			`offset 15 (0xf): benchmarks[0]: profilerOutputs[0]: expected a type and a filename`},
		{`{"benchmarks":[]} x`, `offset 18 (0x12): invalid JSON: invalid character 'x' after top-level value`},
		{`{"benchmarks":[] `, `offset 16 (0x10): invalid JSON: unexpected end of JSON input`},
		{`{"benchmarks":[,]}`, `offset 15 (0xf): invalid JSON: invalid character ',' looking for beginning of value`},
		{`{"context":{"cpuLocked":"yes"},"benchmarks":[]}`, `offset 24 (0x18): context.cpuLocked: expected true or false, found a JSON string`},
	} {
		f, err := Read(strings.NewReader(tc.in))
		if err == nil {
			t.Errorf("Read(%q): no error, %+v", tc.in, f)
			continue
		}
		var fe *FormatError
		if !errors.As(err, &fe) || err.Error() != tc.want {
			t.Errorf("Read(%q):\n got %v\nwant %s", tc.in, err, tc.want)
		}
	}
}
