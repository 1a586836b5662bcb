//go:build !atrace2_reference

package folded

// referenceOnly is false: Write takes the fast path (see the package doc).
const referenceOnly = false
