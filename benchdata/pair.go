package benchdata

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// IsResultArg says a command-line argument names benchmark results rather
// than a trace: a folder, or a file whose name ends in .json.
func IsResultArg(arg string) bool {
	if strings.HasSuffix(strings.ToLower(arg), ".json") {
		return true
	}
	st, err := os.Stat(arg)
	return err == nil && st.IsDir()
}

// IsResultName says a file in a folder is a benchmark result: its name
// ends in benchmarkData.json (the writer's "<package>-benchmarkData.json",
// and older "<package>BenchmarkData.json").
func IsResultName(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), "benchmarkdata.json")
}

// Find expands the arguments of one side: a file stays as it is, and a
// folder gives every result file (IsResultName) below it, sorted. A folder
// without one is an error.
func Find(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, a) // Open says what is wrong with it
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && IsResultName(d.Name()) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *-benchmarkData.json file in this folder", a)
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}

// Run is one benchmark's results in one file.
type Run struct {
	File *File
	*Benchmark
}

// Pair is one benchmark (by Key) on the two sides: its results in each file
// of each side that has it. A benchmark of one side only has no Runs on
// the other.
type Pair struct {
	Key      string
	Class    string
	Name     string
	Params   []Param
	Old, New []Run
}

// Both says the benchmark has results on both sides.
func (p *Pair) Both() bool { return len(p.Old) > 0 && len(p.New) > 0 }

// PairUp matches the benchmarks of the old and the new files by Key,
// sorted by Key. A file holding a benchmark twice gives it two Runs.
func PairUp(olds, news []*File) []*Pair {
	byKey := map[string]*Pair{}
	var pairs []*Pair
	add := func(files []*File, old bool) {
		for _, f := range files {
			for i := range f.Benchmarks {
				b := &f.Benchmarks[i]
				k := b.Key()
				p := byKey[k]
				if p == nil {
					p = &Pair{Key: k, Class: b.Class, Name: b.Name, Params: b.Params}
					byKey[k] = p
					pairs = append(pairs, p)
				}
				if old {
					p.Old = append(p.Old, Run{f, b})
				} else {
					p.New = append(p.New, Run{f, b})
				}
			}
		}
	}
	add(olds, true)
	add(news, false)
	slices.SortFunc(pairs, func(a, b *Pair) int { return cmp.Compare(a.Key, b.Key) })
	return pairs
}

// Match keeps the pairs whose "class#name" (Key) the pattern matches
// (unanchored), such as --benchmark 'TrivialJavaBenchmark#increment' or
// --benchmark 'startup\[.*COLD'.
func Match(pairs []*Pair, pattern *regexp.Regexp) []*Pair {
	if pattern == nil {
		return pairs
	}
	var out []*Pair
	for _, p := range pairs {
		if pattern.MatchString(p.Key) {
			out = append(out, p)
		}
	}
	return out
}

// Sampling says what a metric's samples are.
type Sampling string

// Samplings.
const (
	// FileMedians: one sample per file, the median of its repeats (at
	// least two files on each side).
	FileMedians Sampling = "file-medians"
	// Repeats: every repeat of every file (one file on a side). The
	// repeats of one run are not independent runs: the test is
	// optimistic.
	Repeats Sampling = "repeats"
)

// Sampling is how MetricSamples chooses this pair's samples.
func (p *Pair) Sampling() Sampling {
	if len(p.Old) >= 2 && len(p.New) >= 2 {
		return FileMedians
	}
	return Repeats
}

// MetricNames are the names of the metrics (not sampled) of any run of
// either side, sorted.
func (p *Pair) MetricNames() []string {
	var names []string
	for _, r := range slices.Concat(p.Old, p.New) {
		for _, m := range r.Metrics {
			if !slices.Contains(names, m.Name) {
				names = append(names, m.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// SampledNames are the names of the sampled metrics of either side, sorted.
func (p *Pair) SampledNames() []string {
	var names []string
	for _, r := range slices.Concat(p.Old, p.New) {
		for _, m := range r.Sampled {
			if !slices.Contains(names, m.Name) {
				names = append(names, m.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// MetricSamples returns the samples of metric name on each side (see
// Sampling); a side is nil when no run of it has the metric, and a run
// without it is left out.
func (p *Pair) MetricSamples(name string) (old, new []float64) {
	how := p.Sampling()
	side := func(runs []Run) []float64 {
		var xs []float64
		for _, r := range runs {
			for _, m := range r.Metrics {
				if m.Name != name {
					continue
				}
				if how == FileMedians || len(m.Runs) == 0 {
					xs = append(xs, m.Median)
				} else {
					xs = append(xs, m.Runs...)
				}
			}
		}
		return xs
	}
	return side(p.Old), side(p.New)
}

// SampledValues returns the pooled values of sampled metric name on each
// side: every value of every repeat of every run.
func (p *Pair) SampledValues(name string) (old, new []float64) {
	side := func(runs []Run) []float64 {
		var xs []float64
		for _, r := range runs {
			for i := range r.Sampled {
				if r.Sampled[i].Name == name {
					xs = append(xs, r.Sampled[i].Values()...)
				}
			}
		}
		return xs
	}
	return side(p.Old), side(p.New)
}

// Outputs returns the paths of the profiler outputs of type typ on each
// side, in the order of the files and of each benchmark's list.
func (p *Pair) Outputs(typ string) (old, new []string) {
	side := func(runs []Run) []string {
		var out []string
		for _, r := range runs {
			for _, o := range r.Outputs {
				if o.Type == typ {
					out = append(out, filepath.Join(r.File.Dir(), filepath.FromSlash(strings.ReplaceAll(o.Filename, `\`, "/"))))
				}
			}
		}
		return out
	}
	return side(p.Old), side(p.New)
}

// OutputTypes are the types of profiler output of either side, sorted.
func (p *Pair) OutputTypes() []string {
	var types []string
	for _, r := range slices.Concat(p.Old, p.New) {
		for _, o := range r.Outputs {
			if !slices.Contains(types, o.Type) {
				types = append(types, o.Type)
			}
		}
	}
	slices.Sort(types)
	return types
}
