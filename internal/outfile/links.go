package outfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// linkTarget follows the symbolic links that path ends in to the file they
// name, which may not exist yet: the output replaces that file, not the
// link. Only the last element is followed here; the folders on the way are
// left to the kernel, which reads "dir/../x" the way it reads a link's
// target, from dir's real place, and applies its own protection to the
// links among them.
//
// A link in a sticky world-writable folder (/tmp) is followed only when it
// belongs to the user running atrace2 or to the folder's owner, the rule of
// Linux's fs.protected_symlinks, applied here on every system whatever the
// setting: else another user could plant /tmp/out.pb.gz -> ~/.bashrc and
// have the output replace a file they cannot write. Such a link is refused.
func linkTarget(path string) (string, error) {
	for range 40 { // as many links as Linux follows
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dir, _ := filepath.Split(path)
		dirSt, err := os.Stat(dirOrDot(dir))
		if err != nil {
			return path, nil
		}
		if !mayFollow(st, dirSt) {
			return "", refusef("refusing to follow the symbolic link %s: it is in a sticky folder anyone can write (%s) and belongs to neither you nor the folder's owner", path, filepath.Clean(dirOrDot(dir)))
		}
		to, err := os.Readlink(path)
		if err != nil {
			return path, nil
		}
		if !filepath.IsAbs(to) {
			// Not joined, which would clean "dir/../x" by its text: the
			// kernel reads it from dir's real place.
			to = dir + to
		}
		path = to
	}
	return path, nil
}

func dirOrDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// mayFollow reports whether the link may be followed from dir, the folder
// that holds it, by this process (see linkTarget).
func mayFollow(link, dir fs.FileInfo) bool {
	luid, _, lok := owner(link)
	duid, _, dok := owner(dir)
	return followAllowed(dir.Mode(), duid, luid, os.Geteuid(), lok && dok)
}

// followAllowed is fs.protected_symlinks' rule (may_follow_link in
// Linux's fs/namei.c): a link is followed when its folder is not both
// sticky and world-writable, or when the link belongs to the follower
// (euid) or to the folder's owner. Without owners (known false), a link
// in such a folder is not followed.
func followAllowed(dirMode fs.FileMode, dirUID, linkUID, euid int, known bool) bool {
	if dirMode&fs.ModeSticky == 0 || dirMode.Perm()&0o002 == 0 {
		return true
	}
	return known && (linkUID == euid || linkUID == dirUID)
}

// resolved is path with the links it ends in followed and its folder's
// links resolved, for comparing two outputs' paths (SamePath).
func resolved(path string) string {
	if to, err := linkTarget(path); err == nil {
		path = to
	}
	dir, base := filepath.Split(path)
	if real, err := filepath.EvalSymlinks(dirOrDot(dir)); err == nil {
		path = filepath.Join(real, base)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path
}
