package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPty opens a pseudo-terminal and returns its terminal side, which
// term.IsTerminal accepts like a real one.
func openPty(t *testing.T) *os.File {
	t.Helper()
	_, tty := openPtyPair(t)
	return tty
}

// openPtyPair opens a pseudo-terminal and returns its master side, which
// reads what is written to the terminal side, and its terminal side.
func openPtyPair(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	var err error
	ptmx, err = os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var unlock int32
	var n uint32
	fd := ptmx.Fd()
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlocking the pseudo-terminal: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("naming the pseudo-terminal: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return ptmx, tty
}

// TestPprofRefusesTerminal: without -o, a terminal on stdout gets a hint
// instead of binary data, before any conversion.
func TestPprofRefusesTerminal(t *testing.T) {
	tty := openPty(t)
	var errb strings.Builder
	code := run([]string{"pprof", sample}, &env{stdin: strings.NewReader(""), stdout: tty, stderr: &errb})
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	want := "atrace2: refusing to write a binary pprof profile to a terminal: use -o app.pb.gz (then go tool pprof -http :0 app.pb.gz), redirect stdout, or view it at once with --http :0\n"
	if errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}
