package pprofout_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestMergeSums merges the recursion and the repairs cases, whose main
// threads share name and tid: equal stacks add up exactly.
func TestMergeSums(t *testing.T) {
	dir := t.TempDir()
	a := writeTrace(t, dir, "a.trace", policyCases[0].trace)
	b := writeTrace(t, dir, "b.trace", policyCases[2].trace)
	p := build(t, a, b)
	// x.A: 1+2 calls, 5000+4000 cpu, 17000+7000 wall; x.A;x.B: 2+1,
	// 3000+1000, 6000+2000; the other stacks are in one trace only.
	want := `main/1 x.A 3 9000 24000
main/1 x.A;<unknown method 0x40> 1 1000 2000
main/1 x.A;x.B 3 4000 8000
main/1 x.A;x.B;x.A 1 2000 3000
main/1 x.A;x.B;x.A;x.A 1 2000 4000
main/1 x.A;x.B;x.C 1 2000 3000
thread 9/9 x.B 1 3000 2000
`
	if got := dump(p); got != want {
		t.Errorf("merged samples:\n%s\nwant:\n%s", got, want)
	}
	if p.DurationNanos != 30000+18000 {
		t.Errorf("duration %d, want the sum of the wall spans 48000", p.DurationNanos)
	}
	if p.Mapping[0].File != a+", "+b {
		t.Errorf("mapping file %q, want both traces", p.Mapping[0].File)
	}
	for i, f := range []string{a, b} {
		want := "converted by atrace2 " + testVersion + " from " + f
		if n := strings.Count(strings.Join(p.Comments, "\n"), want); n != 1 {
			t.Errorf("comment %d %q appears %d times in %q", i, want, n, p.Comments)
		}
	}
}

// TestMergeMatchesPprof checks the merge against an independent path:
// pprof's own profile.Merge of the profiles of each trace.
func TestMergeMatchesPprof(t *testing.T) {
	dir := t.TempDir()
	tr1, _ := manyThreads(3)
	tr2, _ := manyThreads(4)
	paths := []string{
		writeGen(t, dir, "m1.trace", tr1), writeGen(t, dir, "m2.trace", tr2),
		writeTrace(t, dir, "o.trace", policyCases[1].trace),
	}
	merged := build(t, paths...)
	var each []*profile.Profile
	for _, p := range paths {
		each = append(each, build(t, p))
	}
	ref, err := profile.Merge(each)
	if err != nil {
		t.Fatal(err)
	}
	got, want := sampleMap(merged), sampleMap(ref)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("merge differs from profile.Merge:\n%s", lineDiff(fmt.Sprint(got), fmt.Sprint(want)))
	}
	if len(got) != len(merged.Sample) {
		t.Errorf("%d samples for %d distinct (thread, tid, stack, synthetic) keys", len(merged.Sample), len(got))
	}
	if merged.DurationNanos != ref.DurationNanos {
		t.Errorf("duration %d, profile.Merge says %d", merged.DurationNanos, ref.DurationNanos)
	}
}

// recursionWall is the recursion case recorded with the wall clock only
// (version 2 records hold one time).
const recursionWall = `version 2
clock wall
vm art
thread 1 main
method 0x4 x A ()V X.java
method 0x8 x B ()V X.java
1 enter 0x4 0
1 enter 0x8 3
1 enter 0x4 5
1 enter 0x4 6
1 exit 0x4 10
1 exit 0x4 12
1 exit 0x8 14
1 enter 0x8 20
1 exit 0x8 22
1 exit 0x4 30
`

// TestMergeClocks merges a dual-clock and a wall-only trace: only the
// common clock is kept, as pprof's CompatibilizeSampleTypes would, and a
// comment says why cpu is missing.
func TestMergeClocks(t *testing.T) {
	dir := t.TempDir()
	dual := writeTrace(t, dir, "dual.trace", policyCases[0].trace)
	wall := writeTrace(t, dir, "wall.trace", recursionWall)
	p := build(t, dual, wall)
	if got := sampleTypes(p); got != "calls/count wall/nanoseconds" || p.DefaultSampleType != "wall" {
		t.Errorf("sample types %s default %s, want calls/count wall/nanoseconds, wall", got, p.DefaultSampleType)
	}
	want := `main/1 x.A 2 0 34000
main/1 x.A;x.B 4 0 12000
main/1 x.A;x.B;x.A 2 0 6000
main/1 x.A;x.B;x.A;x.A 2 0 8000
`
	if got := dump(p); got != want {
		t.Errorf("merged samples:\n%s\nwant:\n%s", got, want)
	}
	note := dual + ": cpu/nanoseconds left out: not every merged trace has a thread-CPU clock"
	if !strings.Contains(strings.Join(p.Comments, "\n"), note) {
		t.Errorf("comments %q lack %q", p.Comments, note)
	}
}

func sampleTypes(p *profile.Profile) string {
	var s []string
	for _, st := range p.SampleType {
		s = append(s, st.Type+"/"+st.Unit)
	}
	return strings.Join(s, " ")
}
