//go:build unix

package record

import "syscall"

// ownProcessGroup puts a child in a process group of its own: a Ctrl-C on
// the terminal signals the foreground group, atrace2 alone.
func ownProcessGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
