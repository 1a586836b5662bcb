//go:build !atrace2_reference

package pprofout

// referenceOnly is false: Builder.Write encodes the profile itself (see
// Write).
const referenceOnly = false
