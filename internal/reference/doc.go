// Package reference says whether this build runs every fast path's plain
// reference path instead (Only).
//
// Every optimised component of atrace2 keeps a plain reference path beside
// its fast path, and a test that ties the two. One style chooses between
// them everywhere:
//
//   - The build tag atrace2_reference sets Only, which turns every fast
//     path off: `go test -tags atrace2_reference ./...` runs the whole
//     suite on the reference paths.
//   - Within a build, a test chooses a path through an unexported field of
//     the value that runs it (an Options field, a builder's field), OR'ed
//     with Only; tests of another package reach the field through a
//     function in the package's export_test.go. A test that ties a fast
//     path to its reference either calls the two functions directly, or
//     sets the field for one run and not for the other (and skips under
//     the tag, where both runs take the reference).
//
// There are no package-level switches: nothing a test sets outlives the
// value it set it on, so tests can run in parallel.
package reference
