package samples_test

import (
	"strings"
	"testing"

	"github.com/atrace2/atrace2/samples"
)

// TestCheck makes sure Check, which the fuzz targets rely on, catches each
// broken invariant.
func TestCheck(t *testing.T) {
	good := func() *samples.Profile {
		return &samples.Profile{
			Threads:  []samples.Thread{{ID: 1}},
			Frames:   []samples.Frame{{Name: "a.B.c"}, {Name: "a.B.d"}},
			Samples:  []samples.Sample{{Thread: 0, Stack: []int{0, 1}, Count: 2}, {Thread: -1, Stack: []int{1}}},
			MaxDepth: 2,
		}
	}
	if err := good().Check(); err != nil {
		t.Fatalf("good profile: %v", err)
	}
	for want, breakIt := range map[string]func(p *samples.Profile){
		"frames 0 and 1 are equal":              func(p *samples.Profile) { p.Frames[1] = p.Frames[0] },
		"thread index 1 out of range":           func(p *samples.Profile) { p.Samples[0].Thread = 1 },
		"thread index -2 out of range":          func(p *samples.Profile) { p.Samples[0].Thread = -2 },
		"negative count -1":                     func(p *samples.Profile) { p.Samples[1].Count = -1 },
		"frame index 2 out of range":            func(p *samples.Profile) { p.Samples[1].Stack[0] = 2 },
		"MaxDepth is 3":                         func(p *samples.Profile) { p.MaxDepth = 3 },
		"frame 0 (a.B.c) is in no stack":        func(p *samples.Profile) { p.Samples[0].Stack = []int{1, 1} },
		"negative unlisted count -5 (x)":        func(p *samples.Profile) { p.Unlisted = []samples.Unlisted{{Reason: "x", Count: -5}} },
		"sample 1: negative count 0 or time -1": func(p *samples.Profile) { p.Samples[1].TimeNanos = -1 },
	} {
		p := good()
		breakIt(p)
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %q", err, want)
		}
	}
}

func TestSampleCountSaturates(t *testing.T) {
	p := &samples.Profile{Samples: []samples.Sample{{Count: 1 << 62}, {Count: 1 << 62}, {Count: 1 << 62}}}
	if got := p.SampleCount(); got != 1<<63-1 {
		t.Errorf("SampleCount() = %d, want MaxInt64", got)
	}
}
