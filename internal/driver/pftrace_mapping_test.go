package driver

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/pftrace"
)

// TestMappingPerfetto: the Java frames of an obfuscated app's Perfetto
// trace (package pftrace), without the trace's own mapping, are renamed by
// an R8 mapping.txt (--mapping) by name, as hprof frames are, and a name
// two methods share is counted ambiguous.
func TestMappingPerfetto(t *testing.T) {
	data, exp := tracegen.StackProfile{Seed: 13, Samples: 1500, Obfuscate: true, OmitMapping: true}.Perfetto()
	p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The R8 map of the app, written from the generator's renaming: per
	// obfuscated class, its readable name and methods; class "oa" gets a
	// second method named "a" too, which makes "oa.a" ambiguous.
	classes := map[string]string{}
	methods := map[string][]string{}
	for obf, readable := range exp.Deobf {
		dot, odot := strings.LastIndexByte(readable, '.'), strings.LastIndexByte(obf, '.')
		classes[obf[:odot]] = readable[:dot]
		methods[obf[:odot]] = append(methods[obf[:odot]], fmt.Sprintf("    void %s() -> %s\n", readable[dot+1:], obf[odot+1:]))
	}
	var m strings.Builder
	m.WriteString("# compiler: R8\n")
	for _, c := range slices.Sorted(func(yield func(string) bool) {
		for c := range classes {
			if !yield(c) {
				return
			}
		}
	}) {
		fmt.Fprintf(&m, "%s -> %s:\n", classes[c], c)
		slices.Sort(methods[c])
		for _, l := range methods[c] {
			m.WriteString(l)
		}
		if c == "oa" {
			m.WriteString("    void overload() -> a\n")
		}
	}
	mp, err := mapping.Read(strings.NewReader(m.String()), "mapping.txt", mappingMethods(p))
	if err != nil {
		t.Fatal(err)
	}
	counts := rename(p, mp)
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	renamed := map[string]bool{} // methods, whatever code (compiled, JIT, interpreted) their frames are in
	for _, f := range p.Frames {
		want, obf := exp.Deobf[f.Obfuscated]
		switch {
		case f.Obfuscated == "oa.a":
			if f.Name != "com.example.app.feed.FeedAdapter.onBindViewHolder | com.example.app.feed.FeedAdapter.overload" {
				t.Errorf("ambiguous frame named %q", f.Name)
			}
		case obf:
			if f.Name != want {
				t.Errorf("frame %q renamed %q, want %q", f.Obfuscated, f.Name, want)
			}
			renamed[f.Obfuscated] = true
		case f.Obfuscated == "" && exp.Deobf[f.Name] != "":
			t.Errorf("frame %q not renamed", f.Name)
		}
	}
	if len(renamed) == 0 || counts[mapping.Ambiguous] != 1 || counts[mapping.Mapped] != len(renamed) {
		t.Errorf("counts %v, %d methods renamed; want 1 ambiguous and the rest mapped", counts, len(renamed))
	}
}
