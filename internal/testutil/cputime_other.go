//go:build !unix

package testutil

// cpuTime is not measured here.
func cpuTime() (int64, bool) { return 0, false }
