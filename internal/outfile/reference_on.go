//go:build atrace2_reference

package outfile

// referenceOnly is set by the atrace2_reference build tag, which turns
// every fast path off.
const referenceOnly = true
