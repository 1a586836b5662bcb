package driver

import (
	"bytes"
	"testing"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/samples/samplegen"
)

// TestKeepThreads: the kept profile holds the kept thread's samples only,
// passes Check (every frame used, MaxDepth the deepest stack), and keeps
// its stacks' frames.
func TestKeepThreads(t *testing.T) {
	p, err := samples.Read(bytes.NewReader(samplegen.Fixture().Dalvik()))
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := samples.Read(bytes.NewReader(samplegen.Fixture().Dalvik()))
	kept, total := keepThreads(p, func(th *samples.Thread) bool { return th.Name == "worker" })
	if kept != 1 || total != 2 {
		t.Errorf("kept %d of %d, want 1 of 2", kept, total)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range whole.Samples {
		if whole.Threads[s.Thread].Name == "worker" {
			want = append(want, stackNames(whole, s.Stack))
		}
	}
	var got []string
	for _, s := range p.Samples {
		got = append(got, stackNames(p, s.Stack))
	}
	if len(got) == 0 || len(got) != len(want) || len(p.Frames) >= len(whole.Frames) {
		t.Fatalf("stacks %q, want %q; %d frames of %d", got, want, len(p.Frames), len(whole.Frames))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("stack %d: %s, want %s", i, got[i], want[i])
		}
	}
}

func stackNames(p *samples.Profile, stack []int) string {
	var b bytes.Buffer
	for _, f := range stack {
		b.WriteString(p.Frames[f].Name + ";")
	}
	return b.String()
}
