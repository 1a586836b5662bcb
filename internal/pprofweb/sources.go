package pprofweb

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/outfile"
)

// The source view reads files the profile names, and those names come from
// the untrusted trace (its source column). pprof opens an absolute name as
// it is, and looks a relative one up in its source path and then in every
// parent of it, up to the root: "etc/passwd" ends at /etc/passwd. So pprof
// never reads the user's files here. Without --source-path the source view
// is off. With it, pprof's source path is a private mirror: every file name
// in the served profile is a clean relative path that exists in the mirror
// as a file made by us, so pprof's first lookup always succeeds and it never
// climbs; the file holds a copy of the same name under DIR, read through
// os.Root (no "..", no symlink out of DIR), or nothing.
const (
	// renamed is the mirror's folder of the names that cannot be kept:
	// absolute or with ".." even when cleaned, too long, or a folder of
	// another name. No kept name starts with it.
	renamed = "_renamed"

	maxSourceFiles = 100_000   // distinct file names served; more turns the source view off
	maxNameLen     = 1024      // bytes in a kept name
	maxElemLen     = 200       // bytes in one element of a kept name
	maxFileSize    = 8 << 20   // larger source files are shown empty
	maxCopied      = 256 << 20 // bytes copied into the mirror in all
)

// sourceMirror serves the source view's files: a private temporary folder
// that pprof's -source_path names, filled at the first request.
type sourceMirror struct {
	dir    string // the mirror, absolute
	remove func()
	root   *os.Root // --source-path DIR
	names  map[string]bool
	off    error // why the source view is off, if it is

	once sync.Once
	err  error
}

// newSourceMirror renames p's source files as served (see servedNames) and
// makes the empty mirror of the files under srcDir.
func newSourceMirror(p *profile.Profile, srcDir string) (*sourceMirror, error) {
	root, err := os.OpenRoot(srcDir)
	if err != nil {
		return nil, fmt.Errorf("--source-path: %w", err)
	}
	dir, remove, err := outfile.TempDir("atrace2-source-")
	if err == nil {
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		root.Close()
		if remove != nil {
			remove()
		}
		return nil, fmt.Errorf("source view: %w", err)
	}
	m := &sourceMirror{dir: dir, remove: remove, root: root}
	// pprof splits its source path at the list separator.
	if strings.ContainsRune(dir, filepath.ListSeparator) {
		m.off = fmt.Errorf("source view off: the temporary folder %s contains %q", dir, filepath.ListSeparator)
	} else if m.names, m.off = servedNames(p); m.off != nil {
		m.off = fmt.Errorf("source view off: %w", m.off)
	}
	return m, nil
}

// close removes the mirror.
func (m *sourceMirror) close() {
	m.root.Close()
	m.remove()
}

// ready fills the mirror once; pprof's source view runs only once it is
// complete.
func (m *sourceMirror) ready() error {
	if m.off != nil {
		return m.off
	}
	m.once.Do(func() { m.err = m.fill() })
	return m.err
}

// fill makes one file in the mirror per served name, and checks that each
// is there as a regular file, so that pprof never looks further.
func (m *sourceMirror) fill() error {
	names := make([]string, 0, len(m.names))
	for n := range m.names {
		names = append(names, n)
	}
	slices.Sort(names)
	budget := int64(maxCopied)
	for _, n := range names {
		dst := filepath.Join(m.dir, n)
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return fmt.Errorf("source view: %w", err)
		}
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("source view: %w", err)
		}
		if !m.names[n] {
			err = m.copy(f, n, &budget)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("source view: %w", err)
		}
	}
	for _, n := range names {
		if st, err := os.Lstat(filepath.Join(m.dir, n)); err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("source view: %s is not in the mirror %s", n, m.dir)
		}
	}
	return nil
}

// copy copies the regular file name under DIR into w, if it is there, not
// too large and within the budget; it returns only errors of writing.
func (m *sourceMirror) copy(w io.Writer, name string, budget *int64) error {
	st, err := m.root.Stat(name)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxFileSize || st.Size() > *budget {
		return nil
	}
	f, err := m.root.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st2, err := f.Stat(); err != nil || !os.SameFile(st, st2) {
		return nil
	}
	n, err := io.Copy(markWrites{w}, io.LimitReader(f, st.Size()))
	*budget -= n
	var werr *writeError
	if errors.As(err, &werr) {
		return werr.err
	}
	return nil
}

// servedNames renames, in place, the source files of p's functions that
// pprof could resolve outside the mirror, and returns the served names,
// each mapped to whether it was renamed (a renamed file stays empty).
// A name is kept when it is a clean relative path without "..", not too
// long, not under renamed/ and no folder of another name; otherwise it is
// cleaned as if rooted ("/etc/passwd" and "../../etc/passwd" become
// "etc/passwd") and kept if that passes, or else becomes renamed/N.
func servedNames(p *profile.Profile) (map[string]bool, error) {
	served := map[string]string{} // original → served
	kept := map[string]bool{}
	for _, fn := range p.Function {
		f := fn.Filename
		if _, ok := served[f]; ok || f == "" {
			continue // "" is read as the mirror itself, a folder
		}
		if len(served) == maxSourceFiles {
			return nil, fmt.Errorf("the profile names more than %d source files", maxSourceFiles)
		}
		s := f
		if !keepable(s) {
			s = strings.TrimLeft(filepath.Clean(string(filepath.Separator)+strings.TrimPrefix(f, filepath.VolumeName(f))), string(filepath.Separator))
		}
		if !keepable(s) {
			s = ""
		} else {
			kept[s] = true
		}
		served[f] = s
	}
	// A kept name that is a folder of another cannot be a file.
	folder := map[string]bool{}
	for s := range kept {
		for d := filepath.Dir(s); d != "." && !folder[d]; d = filepath.Dir(d) {
			folder[d] = true
		}
	}
	names := map[string]bool{}
	originals := make([]string, 0, len(served))
	for f := range served {
		originals = append(originals, f)
	}
	slices.Sort(originals) // renamed/N in a stable order
	for _, f := range originals {
		s := served[f]
		if s == "" || folder[s] {
			s = filepath.Join(renamed, strconv.Itoa(len(names)))
			names[s] = true
		} else {
			names[s] = false
		}
		served[f] = s
	}
	for _, fn := range p.Function {
		if s, ok := served[fn.Filename]; ok {
			fn.Filename = s
		}
	}
	return names, nil
}

// keepable reports whether pprof resolves s inside its source path, and s
// can be a file name in the mirror.
func keepable(s string) bool {
	if !filepath.IsLocal(s) || s == "." || filepath.Clean(s) != s || len(s) > maxNameLen || strings.IndexByte(s, 0) >= 0 {
		return false
	}
	elems := strings.Split(s, string(filepath.Separator))
	if elems[0] == renamed {
		return false
	}
	for _, e := range elems {
		if len(e) > maxElemLen {
			return false
		}
	}
	return true
}

// markWrites marks the errors of writing the mirror, which io.Copy mixes
// with those of reading DIR.
type markWrites struct{ w io.Writer }

func (m markWrites) Write(b []byte) (int, error) {
	n, err := m.w.Write(b)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
