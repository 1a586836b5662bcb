//go:build atrace2_reference

package pprofout

// referenceOnly turns the fast path off: the build tag atrace2_reference
// runs every test on the reference path.
const referenceOnly = true
