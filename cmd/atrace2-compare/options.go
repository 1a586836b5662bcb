package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// optionInputs are the inputs whose options need files beside them: a
// minified build with its maps (--mapping), a cold start (startup and
// phase rules), and sets of runs and of Jetpack Benchmark results (diff
// --old … --new … and the gate). The main commands run on their first
// file as on any trace; more adds the commands that use the rest.
func optionInputs() ([]genInput, error) {
	var out []genInput

	mt, plan := tracegen.MinifiedApp("art", 0)
	ob, err := tracegen.Obfuscate(mt, plan)
	if err != nil {
		return nil, err
	}
	out = append(out, genInput{input{name: "g-minified.trace", kind: kindTrace, more: mappingCommands}, []file{
		{"g-minified.trace", ob.Trace.Regular()},
		{"g-minified-r8.txt", ob.R8},
		{"g-minified-proguard.txt", ob.ProGuard},
	}})

	cold := tracegen.ColdStart(tracegen.ColdStartOptions{}).Trace.Regular()
	slow := tracegen.ColdStart(tracegen.ColdStartOptions{Stretch: "activity-create", Factor: 2}).Trace.Regular()
	out = append(out, genInput{input{name: "g-coldstart.trace", kind: kindTrace, more: startupCommands}, []file{
		{"g-coldstart.trace", cold},
		{"g-coldstart-slow.trace", slow},
	}})

	app := tracegen.FeedApp(20)
	old := app.Runs(tracegen.RunOptions{Noise: tracegen.RealisticNoise, Seed: 1}, runsPerSide)
	slower := app.Runs(tracegen.RunOptions{Noise: tracegen.RealisticNoise, Seed: 2,
		Stretch: "com.example.feed.ImageLoader.load", Factor: 1.5}, runsPerSide)
	files := []file{}
	for i := range runsPerSide {
		files = append(files,
			file{fmt.Sprintf("g-run-old-%d.trace", i), old[i].Regular()},
			file{fmt.Sprintf("g-run-new-%d.trace", i), slower[i].Regular()})
	}
	bench, err := benchFiles()
	if err != nil {
		return nil, err
	}
	files = append(files, bench...)
	out = append(out, genInput{input{name: "g-run-old-0.trace", kind: kindTrace, more: gateCommands}, files})
	return out, nil
}

const runsPerSide = 5

// benchSuite is a generated Jetpack Benchmark suite: a benchmark that
// traces the feed app, one with params, and one without traces.
var benchSuite = tracegen.BenchSuite{Package: "com.example.benchmark", Device: "pixel8", Benchmarks: []tracegen.BenchSpec{
	{Class: "com.example.benchmark.FeedBenchmark", Name: "bind", Metrics: map[string]float64{"timeNs": 120_000, "allocationCount": 40}, App: tracegen.FeedApp(0)},
	{Class: "com.example.benchmark.FeedBenchmark", Name: "scroll[mode=fast]", Metrics: map[string]float64{"timeNs": 900_000}, App: tracegen.FeedApp(0)},
	{Class: "com.example.benchmark.ParseBenchmark", Name: "parse", Metrics: map[string]float64{"timeNs": 50_000}},
}}

// benchFiles writes three runs a side of benchSuite as Gradle lays them
// out (g-bench-SIDE/run-I/…), the new side with bind 1.5 times slower,
// and returns the files.
func benchFiles() ([]file, error) {
	tmp, err := os.MkdirTemp("", "atrace2-compare-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	noise := tracegen.BenchRunOptions{RunNoise: 0.02, RepeatNoise: 0.03, TraceNoise: tracegen.RealisticNoise}
	for side, o := range map[string]tracegen.BenchRunOptions{"old": noise, "new": noise} {
		o.Seed = 7
		if side == "new" {
			o.Seed = 8
			o.Slow, o.SlowMetric, o.TraceStretch, o.Factor = "com.example.benchmark.FeedBenchmark#bind", "timeNs", "com.example.feed.ImageLoader.load", 1.5
		}
		for i := range 3 {
			if _, err := benchSuite.Write(filepath.Join(tmp, "g-bench-"+side, fmt.Sprintf("run-%d", i)), o, i); err != nil {
				return nil, err
			}
		}
	}
	var files []file
	err = filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tmp, p)
		files = append(files, file{filepath.ToSlash(rel), b})
		return nil
	})
	return files, err
}

// mappingCommands deobfuscate the minified trace with either map.
func mappingCommands(in input) []command {
	r8, pg := "in/g-minified-r8.txt", "in/g-minified-proguard.txt"
	w := func(args ...string) command { return command{args: withInput(in, args...)} }
	return []command{
		w("--mapping", r8, "info"),
		w("--mapping", r8, "top", "-n", "0"),
		w("--mapping", r8, "pprof", "-o", "p.pb.gz"),
		w("--mapping", r8, "folded"),
		w("--mapping", r8, "speedscope", "-o", "s.speedscope.json"),
		w("--mapping", r8, "perfetto", "-o", "p.perfetto-trace"),
		w("--mapping", r8, "dump"),
		w("--mapping", pg, "top", "-n", "0"),
		w("--mapping", pg, "--strict", "info"),
		w("--mapping", r8, "--root", "FeedAdapter", "top", "-n", "0"),
		w("--mapping", pg, "--mapping-mismatch", "warn", "folded"),
		w("--mapping", "in/no-such-map.txt", "info"),
		w("--mapping", r8, "convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "--speedscope", "c.speedscope.json", "--folded", "c.folded"),
		{args: append(withInput(in, "--mapping", r8, "diff"), "in/g-minified.trace")},
		{args: a("--mapping", r8, "calls", "in/"+in.name, "bind")},
	}
}

// startupCommands read the cold start's phases and gate on them.
func startupCommands(in input) []command {
	w := func(args ...string) command { return command{args: withInput(in, args...)} }
	return []command{
		w("startup"),
		w("startup", "--format", "json"),
		w("--clock", "cpu", "startup"),
		w("--clock", "offcpu", "startup"),
		w("--thread", "main", "startup"),
		w("--from", "1ms", "startup"),
		{args: a("startup", "in/g-coldstart-slow.trace")},
		{args: a("diff", "--old", "in/g-coldstart.trace", "in/g-coldstart.trace", "in/g-coldstart.trace",
			"--new", "in/g-coldstart-slow.trace", "in/g-coldstart-slow.trace", "in/g-coldstart-slow.trace",
			"--fail-on", "phase:activity-create>+10%", "--fail-on", "phase:first-frame:cpu>+1ms")},
		{args: append(withInput(in, "diff"), "in/g-coldstart-slow.trace")},
	}
}

// gateCommands compare the runs and the benchmark results, with rules,
// every adjustment and every format.
func gateCommands(in input) []command {
	var old, slow []string
	for i := range runsPerSide {
		old = append(old, fmt.Sprintf("in/g-run-old-%d.trace", i))
		slow = append(slow, fmt.Sprintf("in/g-run-new-%d.trace", i))
	}
	runs := func(args ...string) command {
		return command{args: append(append(append(append(a("diff", "--old"), old...), "--new"), slow...), args...)}
	}
	same := func(args ...string) command {
		return command{args: append(append(append(append(a("diff", "--old"), old[:3]...), "--new"), old[2:]...), args...)}
	}
	bench := func(args ...string) command {
		return command{args: append(a("diff", "--old", "in/g-bench-old", "--new", "in/g-bench-new"), args...)}
	}
	rule := "incl>+20%"
	return []command{
		runs(),
		runs("--fail-on", rule),
		runs("--fail-on", rule, "--adjust", "holm"),
		runs("--fail-on", rule, "--adjust", "none"),
		runs("--fail-on", "ImageLoader.load:excl>+20%", "--fail-on", "calls>+5"),
		runs("--fail-on", rule, "--format", "json"),
		runs("--fail-on", rule, "--format", "csv"),
		runs("--fail-on", rule, "--format", "junit"),
		runs("--fail-on", rule, "--format", "markdown"),
		runs("--fail-on", "incl.cpu>+20%", "--clock", "cpu"),
		runs("--fail-on", "excl.offcpu>+50%"),
		runs("--thread", "main", "--fail-on", rule),
		runs("--root", "onBindViewHolder", "--fail-on", rule),
		runs("--fail-on", rule, "--alpha", "0.01"),
		same("--fail-on", rule),
		bench(),
		bench("--fail-on", "metric:timeNs>+5%"),
		bench("--fail-on", "metric:timeNs>+5%", "--fail-on", rule, "--format", "json"),
		bench("--fail-on", "metric:allocationCount>+10", "--format", "junit"),
		bench("--fail-on", "metric:timeNs>+5%", "--format", "markdown"),
		bench("--fail-on", "metric:timeNs>+5%", "--format", "csv"),
		bench("--benchmark", "bind", "--fail-on", rule),
		bench("--strict", "--fail-on", "metric:timeNs>+5%"),
	}
}

// focusCommands run the focus flags, alone and together, and the off-CPU
// clock, on the inputs that get every option.
func focusCommands(in input) []command {
	w := func(args ...string) command { return command{args: withInput(in, args...)} }
	all := a("convert", "--pprof", "c.pb.gz", "--perfetto", "c.perfetto-trace", "--speedscope", "c.speedscope.json", "--folded", "c.folded")
	cmds := []command{
		w("--thread", "main", "top", "-n", "0"),
		w("--thread", "main", "--thread", "1", "folded"),
		w("--thread", "^no-such-thread$", "info"),
		w("--root", "run|main", "top", "-n", "0"),
		w("--root", "run", "pprof", "-o", "p.pb.gz"),
		w("--root", "run", "speedscope", "-o", "s.speedscope.json"),
		w("--root", "^no\\.such\\.method$", "folded"),
		w("--root", "run", "top", "--per-thread", "-n", "3"),
		w("--max-depth", "3", "folded"),
		w(append(a("--max-depth", "3"), all...)...),
	}
	if in.kind == kindTrace {
		cmds = append(cmds,
			w("--from", "1ms", "--to", "20ms", "top", "-n", "0"),
			w("--from", "1ms", "info"),
			w("--to", "5ms", "folded"),
			w("--from", "1ms", "--to", "20ms", "perfetto", "-o", "p.perfetto-trace"),
			w("--from", "1ms", "--to", "20ms", "speedscope", "-o", "s.speedscope.json"),
			w("--from", "1ms", "--clock", "cpu", "top"),
			w("--from", "1ms", "--clock", "cpu", "info"),
			w("--from", "1ms", "--to", "20ms", "top", "--per-thread", "--format", "json", "-n", "3"),
			w("--from", "1000s", "top"),
			w("--clock", "offcpu", "top", "-n", "0"),
			w("--clock", "offcpu", "pprof", "-o", "p.pb.gz"),
			w("--clock", "offcpu", "folded"),
			w("--clock", "offcpu", "perfetto", "-o", "p.perfetto-trace"),
			w("--clock", "offcpu", "speedscope"),
			w(append(a("--thread", "main", "--root", "run", "--from", "1ms"), all...)...),
		)
	}
	return cmds
}
