package main

import (
	"io"

	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/rundiff"
	"github.com/atrace2/atrace2/report"
)

// TopCmd prints the flat profile: Traceview's profile table, dmtracedump's
// exclusive and inclusive profiles.
type TopCmd struct {
	Sort      string `default:"excl" enum:"excl,incl,calls,name,offcpu" help:"Order rows by exclusive time, inclusive time, calls (largest first), method name, or exclusive off-CPU time (a dual-clock trace; as --clock offcpu). One of: ${enum}."`
	Limit     int    `name:"limit" short:"n" placeholder:"N" default:"50" help:"Print at most N rows per table (default 50); 0 prints every method."`
	PerThread bool   `help:"Print one table per thread, busiest first, instead of one table for all threads combined."`
	reportFlags
	Trace []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (hprof text, Android 5.x ART profile)."`
}

// Help is the detailed help: what the columns mean.
func (c *TopCmd) Help() string {
	return "One row per method: exclusive and inclusive time on each clock with their percentages of the total, calls, recursive calls and the mean exclusive time per call (text shows it on the first clock; csv and json on every clock).\n\n" + report.TimeDefinitions + "\n\n" + report.TopDefinitions
}

// Run prints the report.
func (c *TopCmd) Run(e *env) error {
	ins, err := driver.Args(c.Trace)
	if err != nil {
		return err
	}
	if len(ins) != 1 {
		return usagef("top reads one trace, got %d", len(ins))
	}
	p, err := e.profile(ins[0])
	if err != nil {
		return err
	}
	r, err := p.Top(report.TopOptions{Sort: c.Sort, Limit: c.Limit, PerThread: c.PerThread})
	if err != nil {
		return usagef("%v", err)
	}
	return c.write(e, r)
}

// reportFlags are the output flags of top, calls and diff.
type reportFlags struct {
	Format string `default:"text" enum:"text,csv,json" help:"Output format: aligned text for a terminal, or csv or json (every clock, times in ns) for scripts. One of: ${enum}."`
	Wide   bool   `help:"Print every column and method names whole. By default a table fits the terminal: the least useful columns are left out (a line after the table names them) and long names are shortened: an overload's signature to its parameter types' simple names (bind(View,int)), the class from the left (…ui.FeedAdapter.bind); output that is not a terminal keeps every column and shortens names to 160 columns."`
}

// reportWriter is what every report can do.
type reportWriter interface {
	WriteText(io.Writer, report.TextOptions) error
	WriteCSV(io.Writer) error
	WriteJSON(io.Writer) error
}

// write prints r on stdout in the chosen format.
func (f *reportFlags) write(e *env, r reportWriter) error {
	return e.print(func(w io.Writer) error {
		switch f.Format {
		case "csv":
			return r.WriteCSV(w)
		case "json":
			return r.WriteJSON(w)
		case "junit": // diff's
			return r.(rundiff.Report).WriteJUnit(w)
		case "markdown":
			return r.(rundiff.Report).WriteMarkdown(w, report.MarkdownOptions{})
		}
		return r.WriteText(w, report.LayoutFor(e.stdout, f.Wide))
	})
}

// profile reads one input into a per-method profile
// (driver.Input.Profile).
func (e *env) profile(a input.Arg) (*report.Profile, error) {
	in, err := e.d.Load(a)
	if err != nil {
		return nil, err
	}
	return in.Profile()
}
