package outputs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRequestsAndCheck: the requests come in the table's order, whatever
// the order of the paths; two on standard output, or two naming one file
// (also through a link), are refused.
func TestRequestsAndCheck(t *testing.T) {
	table := []*Format{{Name: "pprof"}, {Name: "perfetto"}, {Name: "folded"}}
	dir := t.TempDir()
	a, link := filepath.Join(dir, "a"), filepath.Join(dir, "link")
	if err := os.WriteFile(a, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		paths map[string]string
		names []string // the requests' formats
		err   string
	}{
		{map[string]string{"folded": "-", "pprof": "p.pb.gz"}, []string{"pprof", "folded"}, ""},
		{map[string]string{"perfetto": "", "folded": "f"}, []string{"folded"}, ""},
		{map[string]string{"pprof": "-", "folded": "-"}, []string{"pprof", "folded"}, "at most one output can go to standard output (-)"},
		{map[string]string{"pprof": a, "folded": link}, []string{"pprof", "folded"}, "--pprof and --folded name the same file " + link + ": one output would replace the other"},
	} {
		reqs := Requests(table, c.paths)
		var names []string
		for _, r := range reqs {
			names = append(names, r.Format.Name)
			if r.Path != c.paths[r.Format.Name] {
				t.Errorf("%v: %s to %q", c.paths, r.Format.Name, r.Path)
			}
		}
		if !slices.Equal(names, c.names) {
			t.Errorf("%v: requests %v, want %v", c.paths, names, c.names)
		}
		err := Check(reqs)
		if got := ""; err != nil {
			got = err.Error()
			if got != c.err {
				t.Errorf("%v: %q, want %q", c.paths, got, c.err)
			}
		} else if c.err != "" {
			t.Errorf("%v: no error, want %q", c.paths, c.err)
		}
	}
}
