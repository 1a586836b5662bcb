package startup

import (
	"strings"
	"testing"
)

// TestWriteTexts: several reports, a blank line between two, each as
// WriteText prints it; one report alone has no blank line.
func TestWriteTexts(t *testing.T) {
	a := &Report{Trace: "a.trace", Thread: "main", ThreadID: 1, Activities: 1}
	b := &Report{Trace: "b.trace", Notes: []string{"looks like a sampling-mode trace"}}
	text := func(r *Report) string {
		var s strings.Builder
		if err := r.WriteText(&s); err != nil {
			t.Fatal(err)
		}
		return s.String()
	}
	for _, c := range []struct {
		reps []*Report
		want string
	}{
		{[]*Report{a}, text(a)},
		{[]*Report{a, b}, text(a) + "\n" + text(b)},
		{nil, ""},
	} {
		var s strings.Builder
		if err := WriteTexts(&s, c.reps); err != nil {
			t.Fatal(err)
		}
		if s.String() != c.want {
			t.Errorf("%d reports:\n%s\nwant:\n%s", len(c.reps), s.String(), c.want)
		}
	}
	if !strings.HasPrefix(text(a), "a.trace: main thread \"main\" (tid 1); 1 activity created\n") {
		t.Errorf("a's text starts %q", text(a))
	}
}
