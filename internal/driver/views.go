package driver

import (
	"fmt"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/info"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/report"
	"github.com/atrace2/atrace2/startup"
)

// The reads that info, the table commands (top, calls, diff) and the
// startup phases (startup, diff's phase rules) make of an input: a
// description of the file, a call tree turned into a per-method profile,
// and a method trace's events through the startup exporter.

// Info reads what `info` reports of the input (package info): a method
// trace's layout, clocks, tables, repairs and focus, from one read without
// events; or what a sampled profile's file states, from its tree. It
// describes the file whatever --clock says.
func (in *Input) Info() (info.Report, error) {
	defer in.show()
	if in.src.Sampled {
		tree, _, err := in.readSampled(false)
		if err != nil {
			return nil, err
		}
		return info.New(in.Name(), nil, tree.Trace(), tree, in.Compressed()), nil
	}
	t, h, err := in.convert(nil)
	if err != nil {
		return nil, err
	}
	return info.New(in.Name(), h, t, nil, in.Compressed()), nil
}

// Profile reads the input's call tree into a per-method profile (package
// report) that shows the value --clock picks (report.Profile.Use).
func (in *Input) Profile() (*report.Profile, error) {
	defer in.show()
	t, err := in.Tree()
	if err != nil {
		return nil, err
	}
	p, err := report.NewProfile(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name(), err)
	}
	p.Name = in.Name() // "<stdin>" rather than "-"
	if err := p.Use(in.d.opt.Value); err != nil {
		return nil, Usagef("%s: --clock %s: %v", in.Name(), in.d.opt.Flags.Clock, err)
	}
	return p, nil
}

// Startup finds the startup phases of a method trace (package startup),
// read once; an input without a timeline is a *UsageError. The phases are
// of the whole main thread: CheckStartup refuses the flags that would hide
// part of it, and Options.Whole drops them.
func (in *Input) Startup() (*startup.Report, error) {
	defer in.show()
	if err := in.Timeline(); err != nil {
		return nil, Usagef("%v; startup phases need a method trace", err)
	}
	if in.src.Sampled {
		return nil, Usagef("%s: %s: startup phases need a method trace (its calls begin and end; samples only show what ran)", in.Name(), input.DescribeSampledFormat(in.src.Format))
	}
	x := startup.New(startup.Options{Value: in.d.opt.Value})
	if _, err := in.Run(false, convert.Deferred(x)); err != nil {
		return nil, err
	}
	r := x.Report()
	r.Trace = in.Name()
	return r, nil
}

// CheckStartup refuses the focus flags, which would hide part of the main
// thread from the startup phases.
func CheckStartup(f Flags) error {
	switch {
	case len(f.Threads) > 0:
		return Usagef("--thread: startup phases are always read on the main thread")
	case f.Root != "":
		return Usagef("--root: startup phases need the main thread's whole stacks")
	case f.From != "" || f.To != "":
		return Usagef("--from/--to: startup phases are found on the whole trace")
	}
	return nil
}
