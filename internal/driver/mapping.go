package driver

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/atrace2/atrace2/mapping"
)

// --mapping (docs/formats.md §19): a method trace is opened with its whole
// method table (openTrace scans a streaming file first), the map is read
// for those methods (loadMapping), its id checked against the ones the
// trace names (checkMapID), and convert names every frame once, before any
// exporter sees it (convert.Options.Mapping). A sampled profile's frames
// are named by deobfuscate, the methods of its frames standing for the
// table. Each input reads the map for its own methods: pprof with several
// traces reads it once per trace, which keeps the map's memory to what one
// trace uses.

// loadMapping reads --mapping's file for the given methods, its warnings
// said once per run.
func (in *Input) loadMapping(methods []mapping.Method) (*mapping.Map, error) {
	m, err := mapping.Open(in.d.opt.Flags.Mapping, methods)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// Name the file and the trouble, not the system call that met it.
		return nil, fmt.Errorf("mapping file %s: %w", pe.Path, pe.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("mapping: %w", err)
	}
	for _, w := range m.Warnings {
		in.sayOnce(Warning, "warning: "+w)
	}
	return m, nil
}

// checkMapID refuses a map whose id is not among the ones the input names,
// or with --mapping-mismatch=warn says so.
func (in *Input) checkMapID(m *mapping.Map, methods []mapping.Method) error {
	err := m.CheckID(mapping.TraceIDs(methods))
	if err == nil {
		return nil
	}
	if in.d.opt.Flags.MappingMismatch == "warn" {
		in.sayOnce(Warning, fmt.Sprintf("%s: warning: %v", in.Name(), err))
		return nil
	}
	return fmt.Errorf("%s: %w (--mapping-mismatch=warn to go on)", in.Name(), err)
}

// hint says once per run that an input read without --mapping looks
// minified (mapping.LooksObfuscated), from the n methods at(i) names: the
// method table the conversion already has (complete once a streaming file
// read once has been read), so no extra pass and no output changes. The
// look depends on classes and sources only, so a method of the same class
// and source as the one before it, as tables list them, is left out: no
// map, a slice at most as long as the table, for the time it takes. Quiet
// skips it.
func (in *Input) hint(n int, at func(i int) mapping.Method) {
	if in.d.opt.Flags.Quiet || in.d.said["hint"] {
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
		in.d.said["hint"] = true
		in.say(Hint, "the method names look minified (R8/ProGuard): give the build's mapping.txt with --mapping FILE to see the original names")
	}
}
