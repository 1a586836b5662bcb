//go:build !atrace2_reference

package reference

// Only is false: every package takes its fast paths, and tests choose the
// reference paths one value at a time (see the package doc).
const Only = false
