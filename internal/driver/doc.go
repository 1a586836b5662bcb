// Package driver is atrace2's load stage, between the command line and the
// views (pprof's internal/driver is the model): it turns the flags into
// Options once, checking them before any input is opened, and turns each
// input, whatever its format, into the one model the views read.
//
//   - NewOptions checks and compiles the flags that shape every read: the
//     thread filter (--thread), the window (--from/--to), the root
//     (--root), the mapping (--mapping), the value the views show
//     (--clock: Options.Value, a stream.Value that each view picks, as
//     pprof's -sample_index; no read narrows to it), the depth limit
//     (--max-depth) and --strict.
//   - Args reads a command's trace arguments (a streaming trace's .sec key
//     file after it); LoadOne and Inputs load them.
//   - Driver.Load identifies an input from its first bytes. Input.Tree
//     reads it into its call tree (stacks.Tree) with the focus and the
//     mapping applied, whatever the input's family: a method trace goes
//     through the converter (package convert), a sampled profile through
//     its reader (package samples) and samples.Profile.Tree. Input.Run
//     drives event exporters (timelines) over a method trace, and refuses
//     an input that has no timeline with a *NoTimelineError. Input.Info
//     gives what `info` reports, Input.Profile the per-method profile of
//     top, calls and diff, Input.Startup the startup phases; Driver.Merge
//     reads the trees that one pprof profile merges.
//   - Every read leaves its diagnostics (the reader's warnings and notes,
//     repairs, how the mapping resolved the methods, what the focus kept,
//     hints) as values in Input.Diagnostics, in the order they arose, and
//     gives them to the run's UI at its end (UI.Diagnose), which prints
//     them. Errors are *UsageError for a command line that cannot apply to
//     the input (exit 80 in the CLI), else data errors.
//
// A new input format has one place: a reader that yields the model. A
// sampled format's reader yields a samples.Profile (threads, frames,
// stacks with counts), which readSampled focuses and maps at one site
// (focusSampled, deobfuscate) and samples.Profile.Tree turns into the tree;
// the identification (internal/input) says which reader an input takes.
package driver
