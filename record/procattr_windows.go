package record

import "syscall"

// ownProcessGroup starts a child in a new process group, which the
// console's Ctrl-C does not reach: it is atrace2's to handle.
func ownProcessGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
