package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/samples"
)

// --mapping (docs/formats.md §19): a method trace is opened with its whole
// method table (openTrace scans a streaming file first), the map is read
// for those methods (loadMapping), its id checked against the ones the
// trace names (checkMapID), and convert names every frame once, before any
// exporter sees it (convert.Options.Mapping). Each input reads the map for
// its own methods: pprof with several traces reads it once per trace,
// which keeps the map's memory to what one trace uses.

// loadMapping reads --mapping's file for the given methods and prints its
// warnings, each once per run.
func loadMapping(g *Globals, methods []mapping.Method) (*mapping.Map, error) {
	m, err := mapping.Open(g.Mapping, methods)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// Name the file and the trouble, not the system call that met it.
		return nil, fmt.Errorf("mapping file %s: %w", pe.Path, pe.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("mapping: %w", err)
	}
	for _, w := range m.Warnings {
		g.sayOnce("warning: " + w)
	}
	return m, nil
}

// checkMapID refuses a map whose id is not among the ones the trace (or
// profile) called name names, or with --mapping-mismatch=warn says so.
func checkMapID(g *Globals, name string, m *mapping.Map, methods []mapping.Method) error {
	err := m.CheckID(mapping.TraceIDs(methods))
	if err == nil {
		return nil
	}
	if g.MappingMismatch == "warn" {
		g.sayOnce(fmt.Sprintf("%s: warning: %v", name, err))
		return nil
	}
	return fmt.Errorf("%s: %w (--mapping-mismatch=warn to go on)", name, err)
}

// hintMapping says once per run, unless --quiet, that an input read
// without --mapping looks minified (mapping.LooksObfuscated), from the n
// methods at(i) names: the method table the conversion already has
// (complete once a streaming file read once has been read), so no extra
// pass and no output changes. The look depends on classes and sources
// only, so a method of the same class and source as the one before it,
// as tables list them, is left out: no map, a slice at most as long as
// the table, for the time it takes.
func hintMapping(g *Globals, name string, n int, at func(i int) mapping.Method) {
	if g.Quiet || g.env.said["hint"] {
		return
	}
	var ms []mapping.Method
	for i := range n {
		m := at(i)
		if k := len(ms) - 1; k >= 0 && ms[k].Class == m.Class && ms[k].Source == m.Source {
			continue
		}
		ms = append(ms, m)
	}
	if mapping.LooksObfuscated(ms) {
		g.sayOnce("hint")
		fmt.Fprintf(g.env.stderr, "atrace2: %s: the method names look minified (R8/ProGuard): give the build's mapping.txt with --mapping FILE to see the original names\n", name)
	}
}

// hintTrace is hintMapping for a method trace's table.
func hintTrace(g *Globals, name string, ms []parser.Method) {
	hintMapping(g, name, len(ms), func(i int) mapping.Method { return convert.MappingMethod(&ms[i]) })
}

// sayOnce prints "atrace2: " and msg on stderr the first time it is
// given, unless --quiet; "hint" only marks the hint as given.
func (g *Globals) sayOnce(msg string) {
	e := g.env
	if e.said == nil {
		e.said = map[string]bool{}
	}
	if e.said[msg] {
		return
	}
	e.said[msg] = true
	if !g.Quiet && msg != "hint" {
		fmt.Fprintln(e.stderr, "atrace2: "+msg)
	}
}

// deobfuscateSampled names the frames of a sampled profile with --mapping,
// the methods of its frames standing for a trace's method table, prints
// how the map resolved them, and returns the map and the counts; without
// --mapping it gives the hint, and returns no map. It applies --strict to
// methods resolved by name only or ambiguously.
func deobfuscateSampled(g *Globals, src *input.Source, p *samples.Profile) (*mapping.Map, mapping.Counts, error) {
	if g.Mapping == "" {
		hintMapping(g, src.Name(), len(p.Frames), func(i int) mapping.Method { return p.Frames[i].MappingMethod() })
		return nil, mapping.Counts{}, nil
	}
	methods := p.MappingMethods()
	m, err := loadMapping(g, methods)
	if err != nil {
		return nil, mapping.Counts{}, err
	}
	if err := checkMapID(g, src.Name(), m, methods); err != nil {
		return nil, mapping.Counts{}, err
	}
	c := p.Deobfuscate(m)
	if g.Strict && c[mapping.NameOnly]+c[mapping.Ambiguous] > 0 {
		return nil, c, fmt.Errorf("%s: strict mode: the mapping resolved %d methods by name only (no descriptor matched) and %d ambiguously",
			src.Name(), c[mapping.NameOnly], c[mapping.Ambiguous])
	}
	if !g.Quiet {
		fmt.Fprintf(g.env.stderr, "atrace2: %s: %s\n", src.Name(), convert.Deobf(m, c).Summary())
	}
	return m, c, nil
}
