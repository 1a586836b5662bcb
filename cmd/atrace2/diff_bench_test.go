package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
)

// TestDiffBenchmarkArgs: what --old and --new take, and the usage errors
// of benchmark results.
func TestDiffBenchmarkArgs(t *testing.T) {
	dir := t.TempDir()
	suite := tracegen.BenchSuite{Package: "p", Device: "d", Benchmarks: []tracegen.BenchSpec{
		{Class: "C", Name: "a", Metrics: map[string]float64{"timeNs": 100}}}}
	r1, err := suite.Write(filepath.Join(dir, "one"), tracegen.BenchRunOptions{Seed: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := suite.Write(filepath.Join(dir, "two"), tracegen.BenchRunOptions{Seed: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	olds, _ := runSets(t)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string // regexp
		stderr string // regexp
	}{
		{"files", []string{"diff", "--old", r1.Path, "--new", r2.Path}, exitOK, `benchmarkData.json → .*benchmarkData.json: 1 benchmark, 1 on both sides`, `^$`},
		{"folders", []string{"diff", "--old", filepath.Join(dir, "one"), "--new", filepath.Join(dir, "two")}, exitOK, `1 on both sides`, `^$`},
		{"OLD NEW", []string{"diff", r1.Path, r2.Path}, exitOK, `1 on both sides`, `^$`},
		{"mixed", []string{"diff", "--old", r1.Path, olds[0], "--new", r2.Path}, exitUsage, `^$`,
			`--old and --new take traces, or Jetpack Benchmark results \(benchmarkData.json files and folders holding them\), not both`},
		{"benchmark on traces", []string{"diff", "--benchmark", "x", "--old", olds[0], "--new", olds[1]}, exitUsage, `^$`, `--benchmark chooses among Jetpack Benchmark results`},
		{"bad pattern", []string{"diff", "--benchmark", "(", "--old", r1.Path, "--new", r2.Path}, exitUsage, `^$`, `--benchmark "\(": expected a regular expression`},
		{"metric rule on traces", []string{"diff", "--fail-on", "metric:timeNs>+5%", "--old", olds[0], "--new", olds[1]}, exitUsage, `^$`,
			`metric rules judge Jetpack Benchmark results`},
		{"no results in folder", []string{"diff", "--old", empty, "--new", r2.Path}, exitError, `^$`, `no \*-benchmarkData.json file in this folder`},
		{"missing file", []string{"diff", "--old", filepath.Join(dir, "none.json"), "--new", r2.Path}, exitError, `^$`, `none.json`},
		{"metric unknown", []string{"diff", "--fail-on", "metric:frames>+5%", "--old", r1.Path, "--new", r2.Path}, exitOK, `gate: pass: 1 rule, 0 checks`,
			`^atrace2: warning: --fail-on "metric:frames>\+5%" checked nothing: no benchmark of both sides has that metric\n$`},
		{"method rule without traces", []string{"diff", "--fail-on", "excl>+5%", "--old", r1.Path, "--new", r2.Path}, exitOK, `gate: pass`,
			`checked nothing: no benchmark has method traces \(MethodTrace outputs\) on both sides`},
	} {
		code, out, errOut := runCLI(t, nil, c.args...)
		if code != c.code || !regexp.MustCompile(c.stdout).MatchString(out) || !regexp.MustCompile(c.stderr).MatchString(errOut) {
			t.Errorf("%s: exit %d, want %d\nstdout %.600s\nstderr %s", c.name, code, c.code, out, errOut)
		}
	}
}

// TestDiffBenchmarkCorpus: the two results of one startup benchmark in the
// corpus (Pixel 4a, 35 repeats each, one file a side: the repeats are the
// samples). The p-value against an independent computation: U by counting
// the pairs, the normal approximation with the tie and continuity
// corrections (35 > 20 values a side). timeToInitialDisplayMs's medians
// are the 18th of the 35 sorted repeats: 507.556717 and 535.144845.
func TestDiffBenchmarkCorpus(t *testing.T) {
	dir := testutil.CorpusDir(t, "benchmark")
	old, cur := filepath.Join(dir, "measure_startup_09-07-2025-msr-disabled.json"), filepath.Join(dir, "measure_startup_09-07-2025-msr-enabled.json")
	code, out, errOut := runCLI(t, nil, "diff", "--old", old, "--new", cur, "--fail-on", "metric:timeToInitialDisplayMs>+2%", "--format", "json")
	if code != exitRegressed {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var rep struct {
		Benchmarks []struct {
			Sampling string   `json:"sampling"`
			Notes    []string `json:"notes"`
			Metrics  []struct {
				Old, New  float64
				P         float64
				OldValues []float64 `json:"old_values"`
				NewValues []float64 `json:"new_values"`
			} `json:"metrics"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	m := rep.Benchmarks[0].Metrics[0]
	if rep.Benchmarks[0].Sampling != "repeats" || m.Old != 507.556717 || m.New != 535.144845 || len(m.OldValues) != 35 {
		t.Fatalf("%+v", rep.Benchmarks[0])
	}
	a, b := m.OldValues, m.NewValues
	u := 0.0 // pairs with a > b, ties halved
	for _, x := range a {
		for _, y := range b {
			switch {
			case x > y:
				u++
			case x == y:
				u += 0.5
			}
		}
	}
	counts := map[float64]float64{}
	for _, x := range append(append([]float64{}, a...), b...) {
		counts[x]++
	}
	ties := 0.0
	for _, c := range counts {
		ties += c*c*c - c
	}
	n1, n2 := float64(len(a)), float64(len(b))
	n := n1 + n2
	sigma := math.Sqrt(n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1))))
	z := (math.Abs(u-n1*n2/2) - 0.5) / sigma
	p := math.Erfc(z / math.Sqrt2)
	if math.Abs(m.P-p) > 1e-12*p {
		t.Errorf("p %g, the independent computation %g (U %g, z %g)", m.P, p, u, z)
	}
}
