package stream

import (
	"fmt"

	"github.com/atrace2/atrace2/internal/units"
)

// Deobf says how a mapping (--mapping) named the methods: one count per
// distinct method, by how the map resolved it (docs/formats.md §19).
type Deobf struct {
	Map   string // the map's file, as given
	MapID string // its pg_map_id, "" when the map states none

	Mapped    int // one original method, its descriptor matched
	NameOnly  int // resolved by name alone: no descriptor matched
	Ambiguous int // several original methods: named "A.foo | B.bar"
	ClassOnly int // the class is mapped, the method not listed
	Untouched int // the class is not in the map
}

// Summary is one line on how the mapping named the methods, or "" for a
// nil Deobf (no mapping): "deobfuscated with mapping.txt (map id
// 7fe8b95): 812 methods mapped, 3 by name only, 1 ambiguous, 40 class
// only, 2,911 untouched".
func (d *Deobf) Summary() string {
	if d == nil {
		return ""
	}
	id := ""
	if d.MapID != "" {
		id = " (map id " + d.MapID + ")"
	}
	n := func(c int) string { return units.Count(int64(c)) }
	methods := "methods"
	if d.Mapped == 1 {
		methods = "method"
	}
	return fmt.Sprintf("deobfuscated with %s%s: %s %s mapped, %s by name only, %s ambiguous, %s class only, %s untouched",
		d.Map, id, n(d.Mapped), methods, n(d.NameOnly), n(d.Ambiguous), n(d.ClassOnly), n(d.Untouched))
}
