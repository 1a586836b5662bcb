//go:build unix

package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// write creates path, writes s and commits it.
func write(t *testing.T, path, s string) error {
	t.Helper()
	o, err := Create(path, Options{What: "test"})
	if err != nil {
		return err
	}
	defer o.Abort()
	io.WriteString(o, s)
	return o.Commit()
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode()
}

// TestNewOutputMode: a new output gets 0666 less the umask, as a file the
// shell creates; outputs were always 0644.
func TestNewOutputMode(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ umask, want int }{{0o077, 0o600}, {0o002, 0o664}, {0o027, 0o640}} {
		old := syscall.Umask(c.umask)
		path := filepath.Join(dir, "new")
		err := write(t, path, "x")
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		if got := mode(t, path); got != fs.FileMode(c.want) {
			t.Errorf("umask %#o: mode %v, want %v", c.umask, got, fs.FileMode(c.want))
		}
		os.Remove(path)
	}
}

// TestReplacedOutputKeepsMode: an output that replaces a file keeps that
// file's permissions (a private 0600 file became 0644), and is private
// while it is written; as root, it keeps the file's owner and group too.
func TestReplacedOutputKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	for _, perm := range []fs.FileMode{0o600, 0o755, 0o640} {
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, perm)
		o, err := Create(path, Options{What: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if got := mode(t, o.tmp.Name()); got != 0o600 {
			t.Errorf("the temporary file is %v while written, want -rw-------", got)
		}
		io.WriteString(o, "new")
		if err := o.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := mode(t, path); got != perm {
			t.Errorf("replaced a %v file: now %v", perm, got)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("keeping another user's ownership needs root")
	}
	os.Chown(path, 12345, 23456)
	if err := write(t, path, "newer"); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if uid, gid, _ := owner(st); uid != 12345 || gid != 23456 {
		t.Errorf("owner %d:%d, want 12345:23456", uid, gid)
	}
}

// TestFollowAllowed: the decision of fs.protected_symlinks on made-up
// owners (two users are needed to see it on real files).
func TestFollowAllowed(t *testing.T) {
	const me, other, third = 1000, 1001, 1002
	sticky := fs.ModeDir | fs.ModeSticky | 0o777
	for _, c := range []struct {
		name              string
		dir               fs.FileMode
		dirUID, linkUID   int
		known, wantFollow bool
	}{
		{"plain folder, another's link", fs.ModeDir | 0o755, other, other, true, true},
		{"sticky, not world-writable", fs.ModeDir | fs.ModeSticky | 0o775, other, third, true, true},
		{"world-writable, not sticky", fs.ModeDir | 0o777, other, third, true, true},
		{"sticky world-writable, my link", sticky, other, me, true, true},
		{"sticky world-writable, folder owner's link", sticky, other, other, true, true},
		{"sticky world-writable, a third user's link", sticky, other, third, true, false},
		{"sticky world-writable, owners unknown", sticky, other, me, false, false},
	} {
		if got := followAllowed(c.dir, c.dirUID, c.linkUID, me, c.known); got != c.wantFollow {
			t.Errorf("%s: follow %v, want %v", c.name, got, c.wantFollow)
		}
	}
}

// TestSymlinkInStickyFolder: in a sticky world-writable folder (/tmp), a
// link of this user's is followed; as root, a link planted by another
// user is refused and its target left alone, as Linux's
// fs.protected_symlinks refuses to open it.
func TestSymlinkInStickyFolder(t *testing.T) {
	dir := t.TempDir()
	shared := filepath.Join(dir, "shared")
	os.Mkdir(shared, 0o755)
	if err := os.Chmod(shared, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("precious"), 0o600)
	link := filepath.Join(shared, "out")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := write(t, link, "mine"); err != nil {
		t.Fatalf("my own link: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "mine" {
		t.Fatalf("my own link was not followed: the target holds %q", b)
	}
	if os.Geteuid() != 0 {
		t.Skip("a link of another user's needs root to make")
	}
	os.WriteFile(target, []byte("precious"), 0o600)
	if err := os.Lchown(link, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	err := write(t, link, "planted")
	if re := (*RefusedError)(nil); !errors.As(err, &re) {
		t.Errorf("another user's link: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Errorf("the target was replaced: %q", b)
	}
	if entries, _ := os.ReadDir(shared); len(entries) != 1 {
		t.Errorf("files left in the folder: %v", entries)
	}
	// The folder's owner's link is followed.
	os.Chown(shared, 12345, 12345)
	if err := write(t, link, "owner's"); err != nil {
		t.Fatalf("the folder owner's link: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "owner's" {
		t.Errorf("the folder owner's link was not followed: %q", b)
	}
}
