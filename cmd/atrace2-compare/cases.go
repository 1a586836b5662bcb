package main

import (
	"regexp"
	"strings"
)

// command is one atrace2 run: its arguments (without the program name),
// and how standard input and output are connected.
type command struct {
	args []string
	// stdin, when set, is an input file (in/NAME) given as standard input:
	// as the file itself, or through a pipe when pipe is set.
	stdin string
	pipe  bool
	// stdoutFile sends standard output to an empty regular file instead of
	// a pipe (perfetto takes back what it wrote there on a second pass).
	stdoutFile bool
	// stdoutAppend sends standard output to a file opened for appending
	// that already holds a line (perfetto cannot take that back).
	stdoutAppend bool
	// env is added to the environment, such as GOMAXPROCS=1 for the
	// one-core paths.
	env []string
}

// oneCore runs atrace2 on one core (GOMAXPROCS=1), where its stages run
// one after another instead of as a pipeline.
var oneCore = []string{"GOMAXPROCS=1"}

// appendPrefix is what the stdoutAppend file holds before the run.
const appendPrefix = "earlier output\n"

// String is the command as a shell would take it.
func (c command) String() string {
	var b strings.Builder
	if c.stdin != "" && c.pipe {
		b.WriteString("cat " + c.stdin + " | ")
	}
	for _, e := range c.env {
		b.WriteString(e + " ")
	}
	b.WriteString("atrace2")
	for _, a := range c.args {
		b.WriteByte(' ')
		b.WriteString(shellQuote(a))
	}
	if c.stdin != "" && !c.pipe {
		b.WriteString(" < " + c.stdin)
	}
	if c.stdoutFile {
		b.WriteString(" > stdout-file")
	}
	if c.stdoutAppend {
		b.WriteString(" >> stdout-file")
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+%@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// testCase is the commands run on one input (or, for "cli", on none).
type testCase struct {
	name string
	cmds []command
}

func countCommands(cases []testCase) int {
	n := 0
	for _, c := range cases {
		n += len(c.cmds)
	}
	return n
}

// filterCases keeps the commands whose "CASE: COMMAND" matches re.
func filterCases(cases []testCase, re *regexp.Regexp) []testCase {
	var out []testCase
	for _, c := range cases {
		var keep []command
		for _, cmd := range c.cmds {
			if re.MatchString(c.name + ": " + cmd.String()) {
				keep = append(keep, cmd)
			}
		}
		if len(keep) > 0 {
			out = append(out, testCase{c.name, keep})
		}
	}
	return out
}

// Partners for diff and for merging several traces into one profile.
const (
	tracePartner   = "in/sample.trace"
	sampledPartner = "in/s-dalvik.hprof.txt"
)

// commandNames are atrace2's commands, whose help is compared.
var commandNames = []string{"info", "dump", "pprof", "perfetto", "speedscope", "folded", "convert", "top", "calls", "diff"}

// buildCases returns the cli case (help, version, usage errors), then one
// case per input.
func buildCases(inputs []input) []testCase {
	cases := []testCase{cliCase()}
	for _, in := range inputs {
		var cmds []command
		switch in.kind {
		case kindTrace:
			cmds = traceCommands(in)
		case kindSampled:
			cmds = sampledCommands(in)
		case kindBad:
			cmds = badCommands(in)
		}
		if in.more != nil {
			cmds = append(cmds, in.more(in)...)
		}
		cases = append(cases, testCase{in.name, cmds})
	}
	return cases
}

// a makes an argument list.
func a(args ...string) []string { return args }

// withInput returns args with the input's path (and its extra arguments,
// such as a .sec file) appended.
func withInput(in input, args ...string) []string {
	return append(append(args, "in/"+in.name), in.extra...)
}

// cliCase runs help, version and usage errors without an input.
func cliCase() testCase {
	cmds := []command{
		{args: a("--help")},
		{args: a("-h")},
		{args: a("--version")},
		{args: a()},
		{args: a("frobnicate")},
		{args: a("info")},
		{args: a("info", "--no-such-flag", tracePartner)},
		{args: a("--clock", "sideways", "info", tracePartner)},
		{args: a("--time-unit", "ps", "info", tracePartner)},
		{args: a("info", "--format", "xml", tracePartner)},
		{args: a("top", "--sort", "size", tracePartner)},
		{args: a("top", "-n", "-1", tracePartner)},
		{args: a("top", "-n", "many", tracePartner)},
		{args: a("calls", tracePartner)},
		{args: a("calls", tracePartner, "(")},
		{args: a("diff", tracePartner)},
		{args: a("diff", tracePartner, tracePartner, tracePartner)},
		{args: a("diff", "--threshold", "lots", tracePartner, tracePartner)},
		{args: a("convert", tracePartner)},
		{args: a("convert", "--pprof", "-", "--folded", "-", tracePartner)},
		{args: a("info", "in/g-stream-keyfile.sec")},
		{args: a("info", tracePartner, "in/g-stream-keyfile.sec", "in/g-stream-keyfile.sec")},
		{args: a("pprof", "-o", "p.pb.gz", "in/b-missing.trace", tracePartner)},
		{args: a("pprof", "-o", "p.pb.gz", sampledPartner, tracePartner)},
		{args: a("pprof", "-o", "p.pb.gz", sampledPartner, "in/s-jvm-times.hprof.txt")},
		{args: a("pprof", "-o", "nodir/p.pb.gz", tracePartner)},
		{args: a("diff", "-", "-"), stdin: tracePartner, pipe: true},
		{args: a("info", tracePartner, "in/g-v3-dual-art.trace")},
		{args: a("dump", tracePartner, "in/g-v3-dual-art.trace")},
		{args: a("perfetto", "-o", "p.perfetto-trace", tracePartner, "in/g-v3-dual-art.trace")},
		{args: a("convert", "--no-thread", "--pprof", "c.pb.gz", tracePartner)},
		{args: a("convert", "--process-name", "x", "--folded", "c.folded", tracePartner)},
		{args: a("convert", "--pprof", "c.pb.gz", tracePartner, "in/g-v3-dual-art.trace")},
		{args: a("calls", "-n", "0", tracePartner, "Activity")},
		{args: a("-q", "--strict", "--clock", "cpu", "--time-unit", "ns", "top", "-n", "3", tracePartner)},
	}
	for _, c := range commandNames {
		cmds = append(cmds, command{args: a(c, "--help")})
	}
	return testCase{"cli", cmds}
}

// mainTraceCommands run on every method trace.
func mainTraceCommands(in input) []command {
	cmds := []command{
		{args: withInput(in, "info")},
		{args: withInput(in, "info", "--format", "json")},
		{args: withInput(in, "pprof", "-o", "p.pb.gz")},
		{args: withInput(in, "perfetto", "-o", "p.perfetto-trace")},
		{args: withInput(in, "speedscope", "-o", "s.speedscope.json")},
		{args: withInput(in, "folded")},
		{args: withInput(in, "top", "-n", "0")},
		// calls takes one trace argument: a .sec file cannot follow it.
		{args: a("calls", "-n", "10", "in/"+in.name, ".")},
		{args: withInput(in, "convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace",
			"--speedscope", "c.speedscope.json", "--folded", "c.folded")},
		{args: append(withInput(in, "diff", "-n", "0"), tracePartner)},
	}
	if !in.big {
		cmds = append(cmds, command{args: withInput(in, "dump")})
	} else {
		cmds = append(cmds, command{args: withInput(in, "-q", "dump")})
	}
	return cmds
}

// traceCommands are the commands for a method trace: the main ones, and
// for a rich input every option.
func traceCommands(in input) []command {
	cmds := mainTraceCommands(in)
	if in.big {
		cmds = append(cmds,
			command{args: withInput(in, "top", "--per-thread", "--format", "csv", "-n", "0")},
			command{args: withInput(in, "pprof", "-o", "-")},
			command{args: withInput(in, "perfetto")},
			command{args: withInput(in, "perfetto"), stdoutFile: true},
			command{args: withInput(in, "perfetto"), stdoutAppend: true},
			command{args: withInput(in, "perfetto", "-o", "/dev/null")},
		)
		// The one-core paths: no pipeline between the stages.
		for _, args := range [][]string{
			a("info"), a("pprof", "-o", "p.pb.gz"), a("perfetto", "-o", "p.perfetto-trace"),
			a("speedscope", "-o", "s.speedscope.json"), a("folded"), a("top"),
			a("convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "--speedscope", "c.speedscope.json", "--folded", "c.folded"),
		} {
			cmds = append(cmds, command{args: withInput(in, args...), env: oneCore})
		}
		return cmds
	}
	if !in.rich {
		return cmds
	}
	w := func(args ...string) command { return command{args: withInput(in, args...)} }
	if !everyOption[in.name] {
		return append(cmds, someTraceOptions(in)...)
	}
	calls := func(args ...string) command {
		return command{args: append(append(a("calls"), args...), "in/"+in.name, "Activity|main|run|Fib|a\\.|loop")}
	}
	cmds = append(cmds, focusCommands(in)...)
	cmds = append(cmds,
		// Global flags.
		w("-q", "info"),
		w("--strict", "info"),
		w("--strict", "pprof", "-o", "p.pb.gz"),
		w("--strict", "perfetto", "-o", "p.perfetto-trace"),
		w("--strict", "convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "--speedscope", "c.speedscope.json", "--folded", "c.folded"),
		w("--clock", "wall", "info"),
		w("--clock", "cpu", "info"),
		w("--clock", "thread-cpu", "top"),
		w("--clock", "dual", "info", "--format", "json"),
		w("--clock", "wall", "pprof", "-o", "p.pb.gz"),
		w("--time-unit", "us", "info"),
		w("--time-unit", "ns", "info"),
		w("--time-unit", "ns", "folded"),
		w("info", "-q", "--format", "json"),
		// dump.
		w("dump", "--clock", "cpu"),
		w("-q", "dump"),
		// pprof.
		w("pprof", "-o", "-"),
		w("pprof", "--clock", "cpu", "-o", "p.pb.gz"),
		command{args: append(withInput(in, "pprof", "-o", "p.pb.gz"), tracePartner, "in/g-v2d-stream.trace", "in/g-v1-cpu-dalvik.trace")},
		command{args: append(a("pprof", "-o", "p.pb.gz", tracePartner), withInput(in)...)},
		w("-q", "pprof", "-o", "p.pb.gz"),
		// perfetto.
		w("perfetto", "--process-name", "com.example.app", "-o", "p.perfetto-trace"),
		w("perfetto", "--clock", "cpu", "-o", "p.perfetto-trace"),
		w("perfetto", "--clock", "wall", "-o", "p.perfetto-trace"),
		w("perfetto"),
		command{args: withInput(in, "perfetto", "-o", "-"), stdoutFile: true},
		command{args: withInput(in, "perfetto"), stdoutFile: true},
		command{args: withInput(in, "perfetto"), stdoutAppend: true},
		w("perfetto", "-o", "/dev/null"),
		w("convert", "--perfetto", "/dev/null", "--folded", "c.folded"),
		// One core.
		command{args: withInput(in, "pprof", "-o", "p.pb.gz"), env: oneCore},
		command{args: withInput(in, "perfetto", "-o", "p.perfetto-trace"), env: oneCore},
		command{args: withInput(in, "top", "--per-thread"), env: oneCore},
		command{args: withInput(in, "convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "--speedscope", "c.speedscope.json", "--folded", "c.folded"), env: oneCore},
		// speedscope.
		w("speedscope", "--clock", "cpu", "-o", "s.speedscope.json"),
		w("speedscope", "--clock", "wall", "-o", "s.speedscope.json"),
		w("speedscope"),
		// folded.
		w("folded", "--no-thread"),
		w("folded", "--clock", "cpu"),
		w("folded", "--clock", "wall", "--no-thread"),
		w("folded", "-o", "f.folded"),
		// top.
		w("top"),
		w("top", "--sort", "incl", "-n", "5"),
		w("top", "--sort", "calls"),
		w("top", "--sort", "name", "-n", "0"),
		w("top", "--per-thread"),
		w("top", "--per-thread", "--format", "json", "-n", "0"),
		w("top", "--format", "csv", "-n", "0"),
		w("top", "--format", "json"),
		w("top", "--wide", "-n", "0"),
		w("top", "--clock", "cpu"),
		w("top", "--clock", "wall", "--per-thread", "--format", "csv"),
		// calls.
		calls(),
		calls("--format", "csv"),
		calls("--format", "json"),
		calls("-n", "1", "--wide"),
		calls("--clock", "cpu"),
		command{args: a("calls", "in/"+in.name, "^no\\.such\\.method$")},
		// diff.
		command{args: append(a("diff"), append(a(tracePartner), withInput(in)...)...)},
		command{args: append(withInput(in, "diff", "--format", "json"), tracePartner)},
		command{args: append(withInput(in, "diff", "--format", "csv"), tracePartner)},
		command{args: append(withInput(in, "diff", "--threshold", "500us"), tracePartner)},
		command{args: append(withInput(in, "diff", "--threshold", "0.5%"), tracePartner)},
		command{args: append(withInput(in, "diff", "--sort", "incl"), tracePartner)},
		command{args: append(withInput(in, "diff", "--sort", "calls", "--wide"), tracePartner)},
		command{args: append(withInput(in, "diff", "--sort", "name", "-n", "3"), tracePartner)},
		command{args: append(withInput(in, "--clock", "cpu", "diff"), tracePartner)},
		command{args: append(withInput(in, "diff"), withInput(in)...)},
		// convert.
		w("convert", "--pprof", "c.pb.gz", "--folded", "c.folded"),
		w("convert", "--folded", "-", "--no-thread", "--speedscope", "c.speedscope.json"),
		w("convert", "--perfetto", "c.perfetto-trace", "--process-name", "com.example.app"),
		w("convert", "--pprof", "-", "--perfetto", "c.perfetto-trace"),
		w("--clock", "cpu", "convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "--speedscope", "c.speedscope.json", "--folded", "c.folded"),
	)
	if len(in.extra) == 0 && !strings.HasPrefix(in.name, "g-split") {
		// Standard input, as the file itself and through a pipe.
		p := "in/" + in.name
		cmds = append(cmds,
			command{args: a("info", "-"), stdin: p},
			command{args: a("info", "-"), stdin: p, pipe: true},
			command{args: a("pprof", "-o", "p.pb.gz", "-"), stdin: p, pipe: true},
			command{args: a("perfetto", "-o", "p.perfetto-trace", "-"), stdin: p, pipe: true},
			command{args: a("speedscope", "-"), stdin: p, pipe: true},
			command{args: a("folded", "-"), stdin: p},
			command{args: a("dump", "-"), stdin: p, pipe: true},
			command{args: a("top", "-"), stdin: p, pipe: true},
			command{args: a("calls", "-", "."), stdin: p, pipe: true},
			command{args: a("diff", "-", tracePartner), stdin: p, pipe: true},
			command{args: a("diff", tracePartner, "-"), stdin: p},
			command{args: a("pprof", "-o", "p.pb.gz", "/dev/stdin"), stdin: p, pipe: true},
			command{args: a("info", "/dev/stdin"), stdin: p},
			command{args: a("convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "--speedscope", "c.speedscope.json", "--folded", "c.folded", "-"), stdin: p, pipe: true},
		)
	}
	return cmds
}

// everyOption names the inputs that get every option; the other rich
// inputs get someTraceOptions or someSampledOptions, the options whose
// result depends most on the variant. Running every option on every
// rich input would take three times as long.
var everyOption = map[string]bool{
	"sample.trace":                           true,
	"g-v1-cpu-dalvik.trace":                  true,
	"g-v2d-stream.trace":                     true,
	"g-anomalies-v3-art.trace":               true,
	"JetBrains-adt-tools-base__basic.trace":  true,
	"s-dalvik.hprof.txt":                     true,
	"s-jvm-times.hprof.txt":                  true,
	"pjstadig-deque-clojure__java.hprof.txt": true,
}

// someTraceOptions are the options run on the rich trace inputs that do
// not get every option.
func someTraceOptions(in input) []command {
	w := func(args ...string) command { return command{args: withInput(in, args...)} }
	cmds := []command{
		w("--strict", "info"),
		w("--clock", "wall", "info"),
		w("--clock", "cpu", "top", "--per-thread", "--format", "json", "-n", "0"),
		w("--time-unit", "ns", "info"),
		w("dump", "--clock", "cpu"),
		w("perfetto", "--process-name", "com.example.app"),
		{args: withInput(in, "perfetto"), stdoutFile: true},
		{args: withInput(in, "perfetto"), stdoutAppend: true},
		{args: withInput(in, "convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "--speedscope", "c.speedscope.json", "--folded", "c.folded"), env: oneCore},
		{args: append(withInput(in, "pprof", "-o", "p.pb.gz"), tracePartner)},
		w("speedscope", "--clock", "cpu"),
		w("folded", "--clock", "cpu", "--no-thread"),
		{args: a("calls", "--format", "json", "in/"+in.name, ".")},
		{args: append(withInput(in, "diff", "--format", "csv", "--threshold", "0.5%"), tracePartner)},
	}
	if len(in.extra) == 0 && !strings.HasPrefix(in.name, "g-split") {
		p := "in/" + in.name
		cmds = append(cmds,
			command{args: a("info", "-"), stdin: p, pipe: true},
			command{args: a("convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "-"), stdin: p, pipe: true},
		)
	}
	return cmds
}

// sampledCommands are the commands for a sampled profile, including the
// ones that refuse it.
func sampledCommands(in input) []command {
	w := func(args ...string) command { return command{args: withInput(in, args...)} }
	cmds := []command{
		w("info"),
		w("info", "--format", "json"),
		w("pprof", "-o", "p.pb.gz"),
		w("speedscope", "-o", "s.speedscope.json"),
		w("folded"),
		w("top", "-n", "0"),
		w("calls", "."),
		{args: append(withInput(in, "diff", "-n", "0"), sampledPartner)},
		w("perfetto", "-o", "p.perfetto-trace"),
		w("dump"),
		w("convert", "--pprof", "c.pb.gz", "--folded", "c.folded"),
	}
	if !in.rich {
		return cmds
	}
	if !everyOption[in.name] {
		return append(cmds,
			w("--strict", "top"),
			w("folded", "--no-thread"),
			w("top", "--per-thread", "--format", "json"),
			w("calls", "--format", "json", "."),
			command{args: append(withInput(in, "diff", "--format", "json"), sampledPartner)},
			command{args: a("info", "-"), stdin: "in/" + in.name, pipe: true},
		)
	}
	cmds = append(cmds, focusCommands(in)...)
	return append(cmds,
		w("-q", "info"),
		w("--strict", "info"),
		w("--strict", "top"),
		w("--clock", "cpu", "top"),
		w("--clock", "wall", "info"),
		w("pprof", "-o", "-"),
		command{args: append(withInput(in, "pprof", "-o", "p.pb.gz"), sampledPartner, "in/s-random-dalvik.hprof.txt")},
		w("speedscope"),
		w("folded", "--no-thread"),
		w("folded", "--clock", "cpu"),
		w("top", "--sort", "incl"),
		w("top", "--sort", "calls"),
		w("top", "--sort", "name", "--wide"),
		w("top", "--per-thread"),
		w("top", "--format", "csv"),
		w("top", "--format", "json", "--per-thread"),
		w("calls", "--format", "json", "."),
		w("calls", "--format", "csv", "-n", "2", "."),
		command{args: append(withInput(in, "diff", "--format", "json"), sampledPartner)},
		command{args: append(withInput(in, "diff", "--format", "csv"), sampledPartner)},
		command{args: append(withInput(in, "diff", "--threshold", "1%"), sampledPartner)},
		command{args: append(withInput(in, "diff", "--threshold", "500us"), sampledPartner)},
		command{args: append(withInput(in, "diff"), tracePartner)},
		command{args: append(withInput(in, "diff"), "in/s-jvm-times.hprof.txt")},
		command{args: a("info", "-"), stdin: "in/" + in.name, pipe: true},
		command{args: a("top", "-"), stdin: "in/" + in.name},
	)
}

// badCommands run every command on a file that is not a usable trace.
func badCommands(in input) []command {
	w := func(args ...string) command { return command{args: withInput(in, args...)} }
	cmds := []command{
		w("info"),
		w("--strict", "info"),
		w("dump"),
		w("pprof", "-o", "p.pb.gz"),
		w("perfetto", "-o", "p.perfetto-trace"),
		w("speedscope", "-o", "s.speedscope.json"),
		w("folded"),
		w("top"),
		w("calls", "."),
		{args: append(withInput(in, "diff"), tracePartner)},
		w("convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "--speedscope", "c.speedscope.json", "--folded", "c.folded"),
	}
	if in.name != "b-missing.trace" {
		cmds = append(cmds, command{args: a("info", "-"), stdin: "in/" + in.name, pipe: true})
	}
	return cmds
}
