package pprofweb

import (
	"bytes"
	"io"

	"github.com/google/pprof/profile"
)

// reportDefaults restores pprof's defaults before each report: the driver
// keeps its settings in a package variable, so one in-process run would
// otherwise leak -unit, -tagroot or -sample_index into the next. Node and
// edge fractions are 0 so that no small node is dropped from a report.
var reportDefaults = []string{
	"-unit=minimum", "-sample_index=", "-mean=false", "-tagroot=", "-tagleaf=",
	"-focus=", "-ignore=", "-tagfocus=", "-tagignore=", "-nodecount=-1",
	"-nodefraction=0", "-edgefraction=0", "-source_path=", "-trim_path=",
}

// Report runs a pprof report (args such as -top -sample_index=wall) on a
// copy of p with pprof's own driver, in process, and returns its text:
// pprofout's tests read pprof's cumulative numbers from it.
func Report(p *profile.Profile, args ...string) (string, error) {
	var out memWriter
	args = append(append(append([]string{}, reportDefaults...), args...), "-output", "report")
	d := newDriver(p.Copy(), args, io.Discard, true)
	d.opt.Writer = &out
	err := d.run()
	return out.String(), err
}

// memWriter is the driver's file writer, into memory.
type memWriter struct{ bytes.Buffer }

func (m *memWriter) Open(string) (io.WriteCloser, error) { return m, nil }
func (m *memWriter) Close() error                        { return nil }
