//go:build atrace2_reference

package simpleperf

// referenceOnly turns every fast path of the package off: the build tag
// atrace2_reference runs the whole test suite on the reference paths.
const referenceOnly = true
