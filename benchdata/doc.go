// Package benchdata reads the results of Jetpack Benchmark (androidx
// Microbenchmark and Macrobenchmark): the *-benchmarkData.json file each
// run of a benchmark suite writes on the device, which Gradle's
// connected-test tasks copy to
// build/outputs/connected_android_test_additional_output/<variant>/connected/<device>/
// with the trace files the benchmarks recorded beside it. It pairs the
// benchmarks of two sets of such files (before and after a change), picks
// the samples the regression gate compares (package gate), and checks that
// the two sets were measured alike. It imports only the standard library;
// it never reads a trace.
//
// # The file
//
// The writer is androidx's ResultWriter, its shape the Moshi classes of
// benchmark-common's androidx/benchmark/json/BenchmarkData.kt:
//
//	{"context": {"build": {"brand", "device", "fingerprint", "id", "model", "type",
//	                       "version": {"codename", "sdk"}},
//	             "cpuCoreCount", "cpuLocked", "cpuMaxFreqHz", "memTotalBytes",
//	             "sustainedPerformanceModeEnabled", "artMainlineVersion",
//	             "osCodenameAbbreviated", "compilationMode", "payload": {…}},
//	 "benchmarks": [{"name", "params": {…}, "className", "totalRunTimeNs",
//	                 "metrics": {NAME: {"minimum", "maximum", "median", "runs": [v…]}},
//	                 "sampledMetrics": {NAME: {"P50", "P90", "P95", "P99", "runs": [[v…]…]}},
//	                 "warmupIterations", "repeatIterations", "thermalThrottleSleepSeconds",
//	                 "profilerOutputs": [{"type", "label", "filename"}]}]}
//
// A metric (timeNs, allocationCount, timeToInitialDisplayMs, …) has one
// value per repeat of the benchmark in that run; a sampled metric
// (frameDurationCpuMs, …) has a list of values per repeat (one per frame).
// profilerOutputs (since Benchmark 1.3) names the files the benchmark's
// profilers wrote, relative to the JSON file's folder: MethodTrace (an ART
// method trace), StackSamplingTrace (simpleperf's protobuf, or an ART
// sampled trace) and PerfettoTrace. Unknown keys are skipped; a missing
// cpuLocked or thermalThrottleSleepSeconds is unknown, not false or 0.
//
// # Names and params
//
// A parameterized test's name carries its parameters in brackets:
// "startup[startup=COLD,compilation=None]". The writer derives "params"
// from the name by splitting the bracketed part at every comma
// (ResultWriter.getParams), so a value holding a comma comes out broken:
// "compilation=Partial(baselineProfile=UseIfAvailable,iterations=0)" gives
// the params compilation "Partial(baselineProfile=UseIfAvailable" and
// iterations "0)" (androidx's own fixture macro-legacy-trivialscrollbench.json
// shows it). So Params are read from the name, splitting only at commas
// outside parentheses, brackets and braces; the JSON "params" are used
// only when the name has no brackets. A benchmark is identified (Key) by
// its class and its name, which holds its params, and pairs with the
// benchmark of the same Key on the other side.
//
// # Samples
//
// Pair.MetricSamples chooses what the gate compares for a metric. With at
// least two files on each side, one value per file: that run's median of
// the repeats. Repeats within one run share the device's state (its
// temperature, the JIT, what else runs), so the honest noise is between
// runs: real CI baselines of one benchmark move from 374 µs to 599 µs
// between two runs of a day. With one file on a side, the repeats of all
// files are the samples: the test then treats repeats as independent runs
// and its p-values are optimistic (Pair reports which it chose). A sampled
// metric's values are pooled over every repeat and file.
package benchdata
