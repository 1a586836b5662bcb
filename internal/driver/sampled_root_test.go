package driver

import (
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil/sampled"
	"github.com/atrace2/atrace2/samples"
)

// lettersProfile has frames named by letters, "R" and "M" the outer ones.
// Stacks (root first): t0 R A B A C ×3, t0 R A D ×2, t0 M A D ×5, t0 R B
// ×4, t1 R A D ×1, t0 <empty> ×1, and 10 unlisted samples.
func lettersProfile() *samples.Profile {
	names := "RABCDM"
	p := &samples.Profile{
		Format:  samples.JVMHprofSamples,
		Threads: []samples.Thread{{ID: 1, Name: "main"}, {ID: 2, Name: "worker"}},
		Total:   26,
	}
	for _, c := range names {
		p.Frames = append(p.Frames, samples.Frame{Name: "p." + string(c), Class: "p", Method: string(c)})
	}
	st := func(s string) []int {
		var out []int
		for _, c := range s {
			out = append(out, strings.IndexRune(names, c))
		}
		return out
	}
	p.Samples = []samples.Sample{
		{Thread: 0, Trace: 1, Stack: st("RABAC"), Count: 3},
		{Thread: 0, Trace: 2, Stack: st("RAD"), Count: 2},
		{Thread: 0, Trace: 3, Stack: st("MAD"), Count: 5},
		{Thread: 0, Trace: 4, Stack: st("RB"), Count: 4},
		{Thread: 1, Trace: 5, Stack: st("RAD"), Count: 1},
		{Thread: 0, Trace: 6, Stack: nil, Count: 1},
	}
	p.Unlisted = []samples.Unlisted{{Reason: "under cutoff", Count: 10}}
	p.MaxDepth = 5
	return p
}

func TestRootSampled(t *testing.T) {
	for _, tc := range []struct {
		name, pattern string
		kept          rootKept
		want          string // dump's lines from "N frames" on
	}{
		{
			// Recursion counts once at the outermost A; R A D and M A D
			// of thread 0 merge into the first, thread 1's stays apart.
			name: "recursion and merging", pattern: `p\.A`,
			kept: rootKept{Count: 11, TotalCount: 26},
			want: `4 frames
sample trace 1 thread 0 count 3: p.A; p.B; p.A; p.C
sample trace 2 thread 0 count 7: p.A; p.D
sample trace 5 thread 1 count 1: p.A; p.D
`,
		},
		{
			name: "a match at the leaf and inside", pattern: `B$`,
			kept: rootKept{Count: 7, TotalCount: 26},
			want: `3 frames
sample trace 1 thread 0 count 3: p.B; p.A; p.C
sample trace 4 thread 0 count 4: p.B
`,
		},
		{
			// Every outermost frame, and the stand-in of the empty stack:
			// nothing changes but the unlisted samples.
			name: "every root", pattern: `^p\.R$|^p\.M$|no Java`,
			kept: rootKept{Count: 16, TotalCount: 26},
			want: `6 frames
sample trace 1 thread 0 count 3: p.R; p.A; p.B; p.A; p.C
sample trace 2 thread 0 count 2: p.R; p.A; p.D
sample trace 3 thread 0 count 5: p.M; p.A; p.D
sample trace 4 thread 0 count 4: p.R; p.B
sample trace 5 thread 1 count 1: p.R; p.A; p.D
sample trace 6 thread 0 count 1: <empty>
`,
		},
		{
			name: "no match", pattern: `nothing`,
			kept: rootKept{TotalCount: 26},
			want: "0 frames\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := lettersProfile()
			k := rootProfile(p, regexp.MustCompile(tc.pattern))
			if k != tc.kept {
				t.Errorf("kept %+v, want %+v", k, tc.kept)
			}
			if err := p.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			d := sampled.DumpProfile(p)
			if got := d[strings.Index(d, "\n"+strings.Fields(tc.want)[0]+" frames")+1:]; got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if len(p.Unlisted) != 0 {
				t.Errorf("unlisted %v kept", p.Unlisted)
			}
		})
	}
}

// TestRootSampledDepth: MaxDepth follows the kept stacks; a cut stack
// that is kept clears DepthLimited with a note.
func TestRootSampledDepth(t *testing.T) {
	p := lettersProfile()
	p.DepthLimited = true
	rootProfile(p, regexp.MustCompile(`\.A`))
	if p.MaxDepth != 4 || p.DepthLimited {
		t.Errorf("MaxDepth %d, DepthLimited %v; want 4, false", p.MaxDepth, p.DepthLimited)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "1 of the kept stacks reached the profiler's depth limit") {
		t.Errorf("notes %q", p.Notes)
	}
}

// TestRootSampledTimes: cpu=times profiles add calls and times.
func TestRootSampledTimes(t *testing.T) {
	p := lettersProfile()
	p.Format, p.Total, p.Unlisted = samples.JVMHprofTimes, 0, nil
	for i := range p.Samples {
		p.Samples[i].TimeNanos = int64(i+1) * 1000
	}
	k := rootProfile(p, regexp.MustCompile(`p\.D`))
	if want := (rootKept{Count: 8, TotalCount: 16, TimeNanos: 2000 + 3000 + 5000, TotalTimeNanos: 21000}); k != want {
		t.Errorf("kept %+v, want %+v", k, want)
	}
	if got, want := sampled.DumpProfile(p)[strings.Index(sampled.DumpProfile(p), "1 frames"):], `1 frames
sample trace 2 thread 0 count 7 time 5000: p.D
sample trace 5 thread 1 count 1 time 5000: p.D
`; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
}
