package rundiff

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/startup"
	"github.com/atrace2/atrace2/stream"
)

// phaseSeries gives the series of the phase rules (gate.Rule.Phase set):
// one per distinct (phase, clock) the rules name, in the order they name
// them, with each run's phase time in ns. Each run is read once more, with
// d, for its phases (package startup), on its whole main thread: --thread,
// --root and --from/--to, which focus the method series, do not apply.
// A run that cannot be read twice (standard input, a pipe) is refused, a
// phase name startup does not know is a usage error that lists them, and
// a phase a run did not record, or a clock it lacks, is an error that
// names the run.
func (c *Config) phaseSeries(d *driver.Driver, olds, news []input.Arg, rules []gate.Rule) ([]gate.Series, error) {
	type key struct{ phase, clock string }
	var keys []key
	for i := range rules {
		r := &rules[i]
		if r.Phase == "" {
			continue
		}
		if !slices.Contains(startup.Names(), r.Phase) {
			return nil, driver.Usagef("--fail-on %q: no startup phase %q; the phases are %s", r.Text, r.Phase, strings.Join(startup.Names(), ", "))
		}
		if clock := d.Options().Flags.Clock; notShown(d.Options().Value, r.Clock) {
			return nil, driver.Usagef("--fail-on %q: --clock %s reads no %s time, which the rule compares: leave --clock out, or give the rule the clock (phase:%s:%s)",
				r.Text, clock, r.Clock, r.Phase, clock)
		}
		if k := (key{r.Phase, r.Clock}); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	for _, in := range slices.Concat(olds, news) {
		if !rereadable(in) {
			return nil, driver.Usagef("%s: phase rules read each run a second time, and standard input or a pipe can be read only once: give the trace as a file", in.Name())
		}
	}
	// The phases are of the whole main thread; the repairs were reported
	// when the runs were read for the method series.
	whole := d.With(d.Options().Whole())
	read := func(ins []input.Arg) ([]*startup.Report, error) {
		var reps []*startup.Report
		for _, a := range ins {
			in, err := whole.Load(a)
			if err != nil {
				return nil, err
			}
			r, err := in.Startup()
			if err != nil {
				return nil, err
			}
			reps = append(reps, r)
		}
		return reps, nil
	}
	oldReps, err := read(olds)
	if err != nil {
		return nil, err
	}
	newReps, err := read(news)
	if err != nil {
		return nil, err
	}
	var series []gate.Series
	for _, k := range keys {
		s := gate.Series{Subject: k.phase, Kind: gate.Phase, Metric: "phase", Clock: k.clock}
		if s.Old, err = phaseValues(oldReps, k.phase, k.clock); err != nil {
			return nil, err
		}
		if s.New, err = phaseValues(newReps, k.phase, k.clock); err != nil {
			return nil, err
		}
		series = append(series, s)
	}
	return series, nil
}

// phaseValues is the time of one phase on one clock in each report.
func phaseValues(reps []*startup.Report, phase, clock string) ([]float64, error) {
	vs := make([]float64, 0, len(reps))
	for _, r := range reps {
		p := r.Phase(phase)
		if p == nil {
			return nil, fmt.Errorf("%s: invariant violation: no phase %q in the report", r.Trace, phase)
		}
		if !p.Recorded {
			return nil, fmt.Errorf("%s: phase %s: not recorded (%s)", r.Trace, phase, p.Reason)
		}
		if slices.Contains(r.Missing, clock) {
			return nil, fmt.Errorf("%s: phase %s: the trace has no %s time (one clock only)", r.Trace, phase, clock)
		}
		v, _ := p.Value(clock)
		vs = append(vs, float64(v))
	}
	return vs, nil
}

// rereadable reports whether an input can be read again: not standard
// input, not a pipe or a device (a path that cannot be opened is left to
// the reader, which says why).
func rereadable(in input.Arg) bool {
	if in.Path == "-" {
		return false
	}
	st, err := os.Stat(in.Path)
	return err != nil || st.Mode().IsRegular()
}

// notShown says the value v (--clock) shows one clock alone, and not the
// one a phase rule compares (gate.ParseRule gives every phase rule its
// clock, wall by default): the startup phases would not have it.
func notShown(v stream.Value, rule string) bool {
	switch v {
	case stream.ValueWall:
		return rule != "wall"
	case stream.ValueCPU:
		return rule != "cpu"
	}
	return false
}
