package main

import (
	"fmt"

	"github.com/alecthomas/kong"

	"github.com/atrace2/atrace2/internal/rundiff"
	"github.com/atrace2/atrace2/report"
)

// DiffCmd compares the flat profiles of two traces (dmtracedump -d), or of
// two sets of runs, and gates CI on rules.
type DiffCmd struct {
	Sort         string   `default:"excl" enum:"excl,incl,calls,name" help:"Order rows by the absolute change of exclusive time, inclusive time or calls (largest first), or by method name. One of: ${enum}."`
	Limit        int      `name:"limit" short:"n" placeholder:"N" default:"50" help:"Print at most N rows (default 50); 0 prints every method."`
	Threshold    string   `default:"0" help:"Hide methods whose exclusive and inclusive times both changed by less than this: a duration (500us, 2ms) or a percentage of the old trace's total time (0.5%); only a percentage for sampled profiles, which count samples."`
	OldMapping   string   `name:"old-mapping" placeholder:"FILE" help:"The mapping.txt (file, gzip or directory, as --mapping) of the old trace's build, when the two builds differ; the new trace then takes --new-mapping, or none."`
	NewMapping   string   `name:"new-mapping" placeholder:"FILE" help:"The mapping.txt of the new trace's build (see --old-mapping)."`
	Old          runList  `name:"old" placeholder:"TRACE" help:"The old runs: every argument up to the next flag (--old A1 A2 A3), or one per --old; each trace optionally followed by its .sec key file. Use with --new instead of OLD NEW. Or Jetpack Benchmark results: *-benchmarkData.json files, or folders holding them with their traces (see Benchmarks below)."`
	New          runList  `name:"new" placeholder:"TRACE" help:"The new runs (see --old); the two sides may have different numbers of runs."`
	FailOn       []string `name:"fail-on" placeholder:"RULE" sep:"none" help:"Fail (exit 3) when a method or the total regressed by more than a threshold: [METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD, such as 'incl>+5%', 'Feed.*bind:excl.cpu>+2ms' or 'calls>+10'; or a benchmark metric: metric:NAME>THRESHOLD, such as 'metric:timeNs>+5%'. Repeatable."`
	Alpha        float64  `default:"0.05" help:"The significance level of the Mann–Whitney U test a regression must pass (with at least 3 runs per side)."`
	Adjust       string   `default:"bh" enum:"bh,holm,none" help:"How each rule's p-values are adjusted for its number of checks before they are compared with --alpha: bh (Benjamini–Hochberg: with no change a rule fails at most alpha of the time, and changes that move many methods together, as a slower method moves its callers, support each other), holm (the chance of any false regression stays at most alpha, but one method alone among m checks needs p < alpha/m), or none (for a rule naming one method or a few). One of: ${enum}."`
	Inconclusive string   `default:"pass" enum:"pass,fail" help:"What a change past a rule's threshold that is not significant does: pass (exit 0), or fail (exit 4 when nothing regressed). One of: ${enum}."`
	Format       string   `default:"text" enum:"text,csv,json,junit,markdown" help:"Output format: aligned text for a terminal, csv or json (every clock, times in ns) for scripts, junit (one test case per rule and subject checked) for CI test reports, or markdown for a CI job summary such as $$GITHUB_STEP_SUMMARY. One of: ${enum}."`
	Benchmark    string   `placeholder:"PATTERN" help:"With Jetpack Benchmark results: compare and judge only the benchmarks whose class#name matches this regular expression (unanchored), such as 'TrivialJavaBenchmark#increment' or 'startup\\[.*COLD'."`
	Wide         bool     `help:"Print method names whole; by default long names are shortened from the left (…ui.FeedAdapter.bind) to fit the terminal, or 160 columns when the output is not a terminal."`
	Traces       []string `arg:"" optional:"" name:"OLD NEW" help:"The old and the new trace (- for standard input, or a pipe such as <(...), for one of them: a pipe can be read only once), each optionally followed by its .sec key file; or two sampled profiles (a Perfetto trace or simpleperf profile of CPU stack samples, hprof text, an Android 5.x ART profile)."`
}

// runList is the value of --old and --new: kong gives it every argument
// after the flag up to the next flag, so that `--old A1 A2 --new B1 B2`
// reads as it is written, and a repeated flag adds to it. Arguments are not
// split at commas: paths may hold them.
type runList []string

// Decode takes the flag's value and the plain arguments after it.
func (l *runList) Decode(ctx *kong.DecodeContext) error {
	t, err := ctx.Scan.PopValue("trace")
	if err != nil {
		return err
	}
	*l = append(*l, t.String())
	if t.Type == kong.FlagValueToken { // --old=A1 takes A1 only
		return nil
	}
	for {
		next := ctx.Scan.Peek()
		if next.Type != kong.UntypedToken || !next.IsValue() {
			return nil
		}
		*l = append(*l, ctx.Scan.Pop().String())
	}
}

// Help is the detailed help.
func (c *DiffCmd) Help() string {
	return `Per method (matched by class, name and signature, all threads combined): exclusive time, inclusive time and calls in the old and new trace, the change and the change in percent; methods that ran in only one trace show as new or gone. The text table shows the first clock; csv and json carry every clock both traces have.

Runs: with --old A1 A2 … --new B1 B2 … each value is the median of the runs (the mean of the two middle values for an even count; a run where a method is absent counts 0), and json lists every run's value. With at least 3 runs per side, a two-sided Mann–Whitney U test gives each change a p-value (the P columns). The p-value is exact up to 20 runs per side (the permutation distribution for the observed ties), and the normal approximation with tie and continuity corrections beyond. At alpha 0.05 the smallest possible p-value is 0.1 with 3 and 3 runs, 0.057 with 3 and 4, 0.029 with 4 and 4, 0.0079 with 5 and 5.

Rules: --fail-on '[METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD'. METRIC is excl, incl or calls; CLOCK is wall, cpu or offcpu (a dual-clock trace), by default the first clock of the traces; THRESHOLD is a duration (+2ms), a percentage of the old median (+10%) or, for calls, a count (+5). METHOD_PATTERN is a regular expression matched against the method as the table prints it; without one the rule applies to every method and, for times, to the total of all threads. Sampled profiles count samples: give them percentages. Each (rule, subject) gets a verdict: regressed when the change passes the threshold and, with at least 3 runs per side, p < --alpha; inconclusive when it passes the threshold but is not significant or there are fewer than 3 runs per side; improved when it passes the threshold the other way (never fails); ok otherwise. Each rule's p-values are adjusted for its number of checks (--adjust: Benjamini–Hochberg by default, or Holm), so that with no change a rule fails with probability at most --alpha however many methods it checks. A rule over every method needs more runs than one naming a few methods: with 5 runs a side a slower method is found when it moves a few callers' times with it under bh, and 7 runs a side find one method alone among 29 checks (10 among 4,000). When no result at the given run counts could make a rule's inconclusive verdicts regressed, a line says so and how many runs a side would let it decide. Rules are judged on every method, before --limit and --threshold hide rows. Startup phases are rules too: --fail-on 'phase:NAME[:CLOCK]>THRESHOLD', NAME one of the phases of atrace2 startup (bind, application-create, activity-create, activity-start, activity-resume, first-frame, fully-drawn), CLOCK wall (the default), cpu or offcpu; each run is then read a second time for its phases, so runs cannot come from standard input.

Benchmarks: --old and --new also take Jetpack Benchmark results, the *-benchmarkData.json files Microbenchmark and Macrobenchmark write, or folders holding them (such as build/outputs/connected_android_test_additional_output/), any number a side. Benchmarks pair by class and name (which holds the params); a benchmark of one side is listed, and --benchmark PATTERN keeps those whose class#name matches. Each benchmark is compared on its own: its metrics (medians; with two files or more a side the samples are each file's median of its repeats, with one file the repeats, which makes the test optimistic; sampled metrics such as frameDurationCpuMs pool every value and show P50 and P90) and its MethodTrace outputs, as runs (a benchmark without them: its StackSamplingTrace outputs, simpleperf's protobuf or ART sampled traces). 'metric:NAME>THRESHOLD' rules judge the metrics (THRESHOLD a percentage, a number in the metric's unit such as +10, or a duration for a metric named …Ns, …Us or …Ms); method and phase rules judge each benchmark's traces. A rule's checks over all benchmarks are adjusted together. Context checks: a warning when the sides differ in device, build fingerprint or compilation mode, or when CPU clocks were not locked or thermal throttling slept; with --strict they fail (exit 1, after the report).

Exit status: 0 when no rule regressed (and whenever no --fail-on is given); 3 when a rule regressed; 4 when only inconclusive results remain and --inconclusive=fail; 1 for unreadable input; 80 for usage errors. The report is written in full before a non-zero exit.

Formats (grouped by benchmark for benchmark results): junit writes one test case per (rule, subject) checked, a <failure> per regression and a <skipped> per inconclusive result (a <failure> with --inconclusive=fail), with alpha and the adjustment as properties of each rule's suite; markdown prints the verdicts and then the largest changes first, kept under 1 MiB for $GITHUB_STEP_SUMMARY.

` + report.TimeDefinitions + "\n\n" + report.DiffDefinitions
}

// Run prints the report, and fails when a rule regressed.
func (c *DiffCmd) Run(e *env) error {
	r, err := rundiff.Run(rundiff.Config{Driver: e.d,
		Traces: c.Traces, Old: c.Old, New: c.New, OldMapping: c.OldMapping, NewMapping: c.NewMapping, Benchmark: c.Benchmark,
		Sort: c.Sort, Limit: c.Limit, Threshold: c.Threshold, FailOn: c.FailOn, Alpha: c.Alpha, Adjust: c.Adjust,
		InconclusiveFails: c.Inconclusive == "fail"})
	if err != nil {
		return err
	}
	if err := (&reportFlags{Format: c.Format, Wide: c.Wide}).write(e, r.Report); err != nil {
		return err
	}
	for _, w := range r.Warnings(c.Format == "text", e.opt.Flags.Quiet) {
		fmt.Fprintln(e.stderr, "atrace2: "+w)
	}
	return r.Failure
}
