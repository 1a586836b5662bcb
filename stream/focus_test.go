package stream

import "testing"

func TestFocusSummary(t *testing.T) {
	for _, c := range []struct {
		f    FocusStats
		want string
	}{
		{FocusStats{}, ""},
		{FocusStats{ThreadPatterns: []string{"main"}, ThreadsKept: 1, ThreadsTotal: 12}, "focus: 1 of 12 threads (--thread main)"},
		{FocusStats{ThreadPatterns: []string{"main", "Render Thread"}, ThreadsKept: 0, ThreadsTotal: 1}, `focus: 0 of 1 thread (--thread main --thread "Render Thread")`},
		{FocusStats{Window: true, From: 1_500_000, To: 2_000_000_000, FramesKept: 3, FramesTotal: 1234, WallKept: 250_000_000, WallTotal: 4_000_000_000, Root: "a.B.c"},
			"focus: window 1.5 ms to 2 s, root a.B.c: 3 of 1,234 frames, 250 ms of 4 s wall time"},
		{FocusStats{Root: "Looper", FramesKept: 2, FramesTotal: 6, WallKept: 55_000, WallTotal: 170_000},
			"focus: root Looper: 2 of 6 frames, 55 µs of 170 µs wall time"},
		{FocusStats{Window: true, From: 0, To: 1_000_000, Sampled: true, SamplesKept: 1, SamplesTotal: 1},
			"focus: window 0 to 1 ms: 1 of 1 sample"},
		{FocusStats{Root: "Looper", Sampled: true, SamplesKept: 0, SamplesTotal: 26785},
			"focus: root Looper: 0 of 26,785 samples"},
	} {
		if got := c.f.Summary(); got != c.want {
			t.Errorf("%+v: Summary() = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestDeobfSummary(t *testing.T) {
	var none *Deobf
	if got := none.Summary(); got != "" {
		t.Errorf("no map: Summary() = %q, want \"\"", got)
	}
	d := &Deobf{Map: "mapping.txt", MapID: "7fe8b95", Mapped: 812, NameOnly: 3, Ambiguous: 1, ClassOnly: 40, Untouched: 2911}
	want := "deobfuscated with mapping.txt (map id 7fe8b95): 812 methods mapped, 3 by name only, 1 ambiguous, 40 class only, 2,911 untouched"
	if got := d.Summary(); got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	d = &Deobf{Map: "m.txt", Mapped: 1}
	want = "deobfuscated with m.txt: 1 method mapped, 0 by name only, 0 ambiguous, 0 class only, 0 untouched"
	if got := d.Summary(); got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}
