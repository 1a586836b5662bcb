package pprofout_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/stacks"
)

// testVersion is the version the tests write into comments.
const testVersion = "v0.0.0-test"

// writeTrace writes a trace in tracegen's text form as a regular binary
// file named name in dir and returns its path.
func writeTrace(t testing.TB, dir, name, text string) string {
	t.Helper()
	tr, err := tracegen.ParseText(text)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return writeGen(t, dir, name, tr)
}

func writeGen(t testing.TB, dir, name string, tr *tracegen.Trace) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tree runs the converter over a trace file into a call tree.
func tree(t testing.TB, path string) *stacks.Tree {
	t.Helper()
	f, err := parser.Open(path, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := stacks.New()
	if _, err := convert.Run(f, convert.Options{}, convert.Aggregate(a)); err != nil {
		t.Fatal(err)
	}
	return a.Tree()
}

// build converts trace files into one profile and round-trips it through
// Write and profile.Parse, which runs CheckValid again on the decoded form.
// On the way it checks that Builder.Write writes the bytes pprof's library
// writes for Builder.Profile.
func build(t testing.TB, paths ...string) *profile.Profile {
	t.Helper()
	p, err := builder(t, paths...).Profile()
	if err != nil {
		t.Fatal(err)
	}
	checkBuilderWrite(t, p, builder(t, paths...))
	return roundTrip(t, p)
}

// builder adds trace files to a new Builder.
func builder(t testing.TB, paths ...string) *pprofout.Builder {
	t.Helper()
	return addTo(t, pprofout.New(pprofout.Options{Version: testVersion}), paths...)
}

// addTo adds trace files to b.
func addTo(t testing.TB, b *pprofout.Builder, paths ...string) *pprofout.Builder {
	t.Helper()
	for _, p := range paths {
		if err := b.Add(tree(t, p)); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// checkBuilderWrite checks that Builder.Write's encoder (its fast path,
// whatever the build tag) writes what pprof's library writes for p, which
// a builder of the same traces made, and that the library reads it back as
// a valid profile.
func checkBuilderWrite(t testing.TB, p *profile.Profile, b *pprofout.Builder) {
	t.Helper()
	var want bytes.Buffer
	if err := p.WriteUncompressed(&want); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	if err := b.WriteEncoded(&gz); err != nil {
		t.Fatal(err)
	}
	if q, err := profile.Parse(bytes.NewReader(gz.Bytes())); err != nil {
		t.Fatalf("reading Builder.Write's profile back: %v", err)
	} else if err := q.CheckValid(); err != nil {
		t.Fatalf("Builder.Write's profile: %v", err)
	}
	zr, err := gzip.NewReader(&gz)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("Builder.Write: %d bytes differ from the library's %d bytes of the same profile", len(got), want.Len())
	}
}

func roundTrip(t testing.TB, p *profile.Profile) *profile.Profile {
	t.Helper()
	var buf strings.Builder
	if err := pprofout.WriteProfile(&buf, p); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatalf("reading the written profile back: %v", err)
	}
	checkConventions(t, q)
	return q
}

// checkConventions checks what profile.CheckValid does not (docs/outputs.md §4.1):
// units, non-negative values, the default type, the constant period type,
// and the labels every sample must carry.
func checkConventions(t testing.TB, p *profile.Profile) {
	t.Helper()
	if p.PeriodType == nil || p.PeriodType.Type != "calls" || p.PeriodType.Unit != "count" || p.Period != 1 {
		t.Errorf("period type %v period %d, want calls/count 1", p.PeriodType, p.Period)
	}
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	// offcpu, derived from both clocks, comes after them, last; the default
	// is the last measured clock before it (docs/outputs.md §1.2).
	measured := types
	if types[len(types)-1] == "offcpu/nanoseconds" {
		measured = types[:len(types)-1]
		if !slices.Equal(measured, []string{"calls/count", "cpu/nanoseconds", "wall/nanoseconds"}) {
			t.Errorf("sample types %v: want offcpu only after cpu and wall", types)
		}
	}
	last := measured[len(measured)-1]
	if types[0] != "calls/count" || p.DefaultSampleType+"/nanoseconds" != last {
		t.Errorf("sample types %v default %q: want calls/count first and the default the last measured clock", types, p.DefaultSampleType)
	}
	for _, typ := range measured[1:] {
		if typ != "cpu/nanoseconds" && typ != "wall/nanoseconds" {
			t.Errorf("unexpected sample type %s", typ)
		}
	}
	if len(p.Mapping) != 1 || !p.Mapping[0].HasFunctions || p.Mapping[0].File == "" {
		t.Errorf("mappings %v: want one naming the trace, with functions", p.Mapping)
	}
	for _, s := range p.Sample {
		for _, v := range s.Value {
			if v < 0 {
				t.Errorf("negative value in sample %v", s.Value)
			}
		}
		if len(s.Label["thread"]) != 1 || len(s.NumLabel["tid"]) != 1 {
			t.Errorf("sample %v: labels %v %v, want one thread and one tid", s.Value, s.Label, s.NumLabel)
		}
	}
}

// dump lists the samples as "thread/tid A;B calls cpu wall [synthetic]",
// stacks root first, sorted, with 0 for a clock the profile lacks.
func dump(p *profile.Profile) string {
	idx := map[string]int{}
	for i, st := range p.SampleType {
		idx[st.Type] = i
	}
	val := func(s *profile.Sample, typ string) int64 {
		if i, ok := idx[typ]; ok {
			return s.Value[i]
		}
		return 0
	}
	var lines []string
	for _, s := range p.Sample {
		line := fmt.Sprintf("%s/%d %s %d %d %d", s.Label["thread"][0], s.NumLabel["tid"][0], stackOf(s),
			val(s, "calls"), val(s, "cpu"), val(s, "wall"))
		if syn := s.Label["synthetic"]; len(syn) > 0 {
			line += " " + strings.Join(syn, ",")
		}
		lines = append(lines, line)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// stackOf is a sample's stack, root first.
func stackOf(s *profile.Sample) string {
	var names []string
	for i := len(s.Location) - 1; i >= 0; i-- {
		names = append(names, s.Location[i].Line[0].Function.Name)
	}
	return strings.Join(names, ";")
}

// golden compares got with testdata/golden/pprofout/name, or rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", "pprofout", name), []byte(got))
}
