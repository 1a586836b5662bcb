//go:build unix

package outfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// appending reports whether f was opened with O_APPEND (">> FILE"): its
// writes go to its end whatever its offset.
func appending(f *os.File) bool {
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_APPEND != 0
}
