// Package rundiff is the work of atrace2 diff between the load stage
// (internal/driver) and the report (package report): it reads the two
// sides and compares them.
//
//   - The sides: OLD NEW, or --old and --new, each a list of runs (method
//     traces or sampled profiles, a streaming trace followed by its .sec
//     key file), or Jetpack Benchmark results (benchmarkData.json files and
//     folders holding them, package benchdata); a mix, or two runs that
//     read the same pipe, is a usage error.
//   - The runs are read one at a time, each side through its own driver
//     (--old-mapping, --new-mapping), and only each run's flat totals are
//     kept, so that memory does not grow with the call trees of N runs.
//   - Phase rules (--fail-on 'phase:…') read each run once more for its
//     startup phases, on its whole main thread.
//   - Benchmark results pair by benchmark (benchdata.PairUp); each
//     benchmark's MethodTrace outputs are its runs.
//
// Run returns the report, ready to be written, and what is to be said
// beside it (Result.Warnings); the CLI writes it and maps the gate to an
// exit status.
package rundiff
