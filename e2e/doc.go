// Package e2e holds end-to-end tests that run the atrace2 binary and open
// its outputs in the real consumers. It has no code of its own.
//
// TestSpeedscopeInBrowser serves speedscope's built web app from the npm
// package pinned in package.json (node_modules/speedscope/dist/release) on
// 127.0.0.1 and opens every speedscope and folded file atrace2 writes for
// the sample trace, the stack-policy trace and the corpus in Debian's
// chromium, driven by playwright-core (check-speedscope.mjs, docs/outputs.md §4.4),
// after validating each speedscope file against speedscope's JSON schema
// with ajv (docs/outputs.md §4.3). Any schema error, importer error, alert or
// "Something went wrong" screen fails the test, and so does a page title
// other than the expected one. Two deliberately bad files must fail, one
// per check, so a checker that accepts everything cannot pass.
//
// TestSpeedscopeCLI, TestFoldedCLI and TestCLIErrors run the commands as a
// user would (files, stdout, stdin, --clock cpu, --no-thread, exit codes)
// and need no browser.
//
// TestDeobfuscationRoundTrip runs every command on tracegen.MinifiedApp's
// readable traces and on their minified forms with the R8 and the
// ProGuard map (--mapping, docs/formats.md §19), in every layout tracegen
// writes, and requires equal outputs but for the obfuscated names each
// output carries on purpose; the TestDeobfuscationRule* tests check the
// resolution rules one by one with hand-computed output. They need no
// browser.
//
// The TestFocus* tests check issue 23's focus (--thread, --from/--to,
// --root and the off-CPU clock) in every output: folded, pprof, top,
// speedscope, dump and Perfetto (imported with trace_processor, which
// they require as perfetto/trace_processor_test.go does: ATRACE2_TP).
// Their expectations come from hand-computed cases (focus_test.go) and
// from an oracle (focus_oracle_test.go) that replays a tracegen
// description with the rules and shares no code with atrace2;
// on generated traces of several shapes (focus_props_test.go) they check
// that --from 0 is no window, that a window split in two adds up on the
// wall clock, that a --root matching every outermost frame is no root,
// and that every output equals the oracle under each focus.
//
// The TestGate* tests check issue 24's regression gate (`diff --old …
// --new … --fail-on RULE`) on run sets of tracegen.App.Run: one method
// stretched by a known factor regresses and the rest stays ok (with the
// expected verdicts from an oracle that replays the records), in every
// format, the JUnit report validated against Jenkins' schema with
// xmllint (ATRACE2_XMLLINT=require makes its absence fail;
// .ci/setup-xmllint.sh installs it); the exit codes; the markdown cap;
// --thread, --root and --mapping on both sides; startup phase rules; and
// the false-positive rate of unchanged sets over 40 seeds.
//
// The TestRecord* tests (record_unix_test.go) run atrace2 record with the
// fake adb of record/fakeadb (this test binary serves it, see TestMain)
// and signal it: Ctrl-C while recording stops and keeps the trace;
// SIGTERM, or a second Ctrl-C during the copy, stops the profiler and
// removes the file on the device, leaves no output and ends the process
// by the signal.
//
// Setup: .ci/setup-browser.sh installs chromium and runs npm ci here. The
// browser test skips with a message when node, chromium or node_modules are
// missing, unless ATRACE2_E2E=require (CI sets it), which turns the skip
// into a failure. Screenshots go to $ATRACE2_E2E_SHOTS when set, else to a
// temporary folder.
package e2e
