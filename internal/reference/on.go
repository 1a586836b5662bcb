//go:build atrace2_reference

package reference

// Only is true: the build tag atrace2_reference turns every fast path
// off.
const Only = true
