//go:build !unix && !windows

package record

import "syscall"

// ownProcessGroup leaves a child in atrace2's process group where there is
// no other choice.
func ownProcessGroup() *syscall.SysProcAttr { return nil }
