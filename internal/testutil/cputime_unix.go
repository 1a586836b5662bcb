//go:build unix

package testutil

import "syscall"

// cpuTime is the user and system CPU time of the process, in ns.
func cpuTime() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
