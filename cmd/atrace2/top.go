package main

import (
	"io"

	"github.com/atrace2/atrace2/report"
)

// TopCmd prints the flat profile: Traceview's profile table, dmtracedump's
// exclusive and inclusive profiles.
type TopCmd struct {
	Sort      string `default:"excl" enum:"excl,incl,calls,name,offcpu" help:"Order rows by exclusive time, inclusive time, calls (largest first), method name, or exclusive off-CPU time (a dual-clock trace; as --clock offcpu). One of: ${enum}."`
	Limit     int    `name:"limit" short:"n" placeholder:"N" default:"50" help:"Print at most N rows per table (default 50); 0 prints every method."`
	PerThread bool   `help:"Print one table per thread, busiest first, instead of one table for all threads combined."`
	reportFlags
	Trace []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (a Perfetto trace or simpleperf profile of CPU stack samples, hprof text, an Android 5.x ART profile)."`
}

// Help is the detailed help: what the columns mean.
func (c *TopCmd) Help() string {
	return "One row per method: exclusive and inclusive time on each clock with their percentages of the total, calls, recursive calls and the mean exclusive time per call (text shows it on the first clock; csv and json on every clock).\n\n" + report.TimeDefinitions + "\n\n" + report.TopDefinitions
}

// Run prints the report.
func (c *TopCmd) Run(e *env) error {
	in, err := e.d.LoadOne(c.Trace, "top reads one trace")
	if err != nil {
		return err
	}
	p, err := in.Profile()
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

// write prints r on stdout in the chosen format (report.WriteAs).
func (f *reportFlags) write(e *env, r report.Writer) error {
	return e.out().Print(func(w io.Writer) error { return report.WriteAs(w, r, f.Format, report.LayoutFor(e.stdout, f.Wide)) })
}
