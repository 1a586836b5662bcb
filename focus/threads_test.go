package focus

import "testing"

// TestThreadFilter: a pattern matches a name unanchored, or is exactly a
// decimal tid.
func TestThreadFilter(t *testing.T) {
	f, err := NewThreadFilter([]string{"^main$", "Render", "4821", "07"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   int64
		name string
		want bool
	}{
		{1, "main", true},
		{2, "mainline", false},
		{3, "RenderThread", true},
		{4821, "binder:1_2", true},
		{7, "pool-7", false}, // "07" is no tid in decimal, and no name matches it
		{8, "thread 07", true},
	} {
		if got := f.Keep(c.id, c.name); got != c.want {
			t.Errorf("Keep(%d, %q) = %v, want %v", c.id, c.name, got, c.want)
		}
	}
	if got := f.Patterns(); len(got) != 4 || got[0] != "^main$" || got[3] != "07" {
		t.Errorf("Patterns() = %q", got)
	}
}

func TestThreadFilterInvalid(t *testing.T) {
	_, err := NewThreadFilter([]string{"main", "(ui"})
	if err == nil || err.Error() != "--thread \"(ui\": not a regular expression: error parsing regexp: missing closing ): `(ui`" {
		t.Errorf("error %v", err)
	}
}
