package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/term"
)

// File is one output: standard output, or a file that is written under a
// temporary name and renamed only when complete, so a failed conversion
// never leaves a half-written file behind. A path that names an existing
// device or pipe (-o /dev/null, a FIFO) is written directly: a rename would
// replace the device with a regular file.
type File struct {
	bufferedWriter
	tmp    *os.File // the temporary file, renamed to final at Commit
	direct *os.File // a device or pipe written in place
	fresh  *os.File // standard output, a regular file written at its end (> FILE, >> FILE)
	base   int64    // fresh's size before the output: what an error leaves
	null   bool     // direct is the null device, which keeps nothing
	final  string
	name   string      // the output in messages: its path, or "standard output"
	old    fs.FileInfo // the file the output replaces, if any
	closed bool        // flushed and closed (a temporary file not yet renamed)
	done   bool        // renamed into place, or removed
	prog   Progress    // Options.Progress, told Done when the writing stops
}

var _ io.Writer = (*File)(nil)

// Options say how Create opens an output.
type Options struct {
	// What names the output in messages: "pprof", "Perfetto".
	What string
	// Binary refuses a terminal, where binary data would only garble the
	// screen.
	Binary bool
	// Stdout is where the paths "" and "-" write.
	Stdout io.Writer
	// Inputs, when set, are the files the output must not replace.
	Inputs *Inputs
	// Progress, when set, is told of the writing (a progress line).
	Progress Progress
	// WriteBehind writes the output on a goroutine of its own (with more
	// than one CPU), so that formatting the next chunk overlaps the
	// kernel's copy of the last. It pays for outputs about as large as
	// their input (Perfetto, speedscope, dump), not for smaller ones
	// (docs/performance.md §3.10).
	WriteBehind bool
}

// Progress follows the writing of an output.
type Progress interface {
	// Wrote is called with the size of each chunk written to the file,
	// stdout or device (a buffer's worth, not each small write), on the
	// goroutine that writes it.
	Wrote(n int)
	// Done is called once the output is committed or aborted; no Wrote
	// follows.
	Done()
}

// RefusedError is an output the command line asks for that would do harm:
// binary data on a terminal, or an input written over. A command line
// reports it as a usage error.
type RefusedError struct{ msg string }

func (e *RefusedError) Error() string { return e.msg }

func refusef(format string, args ...any) error {
	return &RefusedError{fmt.Sprintf(format, args...)}
}

// Create opens the output path ("" or "-" for opt.Stdout). The caller
// writes it, then calls Commit to keep it, and Abort (deferred) to discard
// whatever was not committed.
func Create(path string, opt Options) (*File, error) {
	if path == "" || path == "-" {
		if opt.Binary && IsTerminal(opt.Stdout) {
			return nil, refusef("refusing to write binary %s data to a terminal: use -o FILE or redirect stdout", opt.What)
		}
		w := opt.Stdout
		fresh, base := stdoutFile(opt.Stdout)
		if fresh != nil {
			// A signal cuts it back to base, as an error does (Abort).
			pending.addStdout(fresh, base)
			w = lockedWriter{fresh}
		}
		return &File{bufferedWriter: newBuffered(&namedWriter{w, stdoutName, true, opt.Progress}, opt.WriteBehind),
			fresh: fresh, base: base, null: isNull(opt.Stdout), name: stdoutName, prog: opt.Progress}, nil
	}
	if err := opt.Inputs.Check(path, opt.What); err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return nil, fmt.Errorf("creating %s: is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", path, pathErr(err))
		}
		if opt.Binary && IsTerminal(f) {
			f.Close()
			return nil, refusef("refusing to write binary %s data to the terminal %s: use a file", opt.What, path)
		}
		return &File{bufferedWriter: newBuffered(&namedWriter{f, path, false, opt.Progress}, opt.WriteBehind), direct: f, final: path,
			null: isNull(f), name: path, prog: opt.Progress}, nil
	}
	name := path
	path, err := linkTarget(path)
	if err != nil {
		return nil, err
	}
	dir, base := filepath.Split(path)
	// A new file gets the mode the kernel gives one: 0666 less the umask
	// (or the folder's default ACL), with no umask read by the process. A
	// file replaced keeps its mode and, where allowed, its owner (keep).
	perm := os.FileMode(0o666)
	old, err := os.Lstat(path)
	if err == nil && old.Mode().IsRegular() {
		perm = 0o600 // private until finish gives it the old file's mode
	} else {
		old = nil
	}
	tmp, err := pending.create(dirOrDot(dir), "."+base+".tmp-", perm)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", name, pathErr(err))
	}
	return &File{bufferedWriter: newBuffered(&namedWriter{tmp, name, false, opt.Progress}, opt.WriteBehind), tmp: tmp, final: path,
		name: name, old: old, prog: opt.Progress}, nil
}

// keep gives the temporary file that replaces old its owner, where this
// process may, and its permissions. Where the group cannot be kept, the
// group's permissions are cut to the others': people of this process's
// group are not the old group. Set-user-ID and the like are not kept.
func keep(f *os.File, old fs.FileInfo) error {
	mode := old.Mode().Perm()
	if uid, gid, ok := owner(old); ok {
		if f.Chown(uid, gid) != nil {
			f.Chown(-1, gid)
		}
		if st, err := f.Stat(); err == nil {
			if _, g, ok := owner(st); ok && g != gid {
				mode &^= 0o070 &^ (mode & 0o007 << 3)
			}
		}
	}
	return f.Chmod(mode)
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// pathErr drops the *fs.PathError or *os.LinkError around err, whose
// operation and paths the message already names.
func pathErr(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	if le := (*os.LinkError)(nil); errors.As(err, &le) {
		return le.Err
	}
	return err
}

// stdoutFile returns w and its size if it is a regular file written at
// its end that can be truncated: as the shell opens stdout for "> FILE"
// (empty, offset 0) or ">> FILE" (O_APPEND); else nil. An error or a
// signal cuts it back to that size. (An append-only file cannot be
// truncated.)
func stdoutFile(w io.Writer) (*os.File, int64) {
	f, ok := w.(*os.File)
	if !ok {
		return nil, 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, 0
	}
	size := st.Size()
	if off, err := f.Seek(0, io.SeekCurrent); err != nil || (off != size && !appending(f)) {
		return nil, 0
	}
	if f.Truncate(size) != nil {
		return nil, 0
	}
	return f, size
}

// isNull reports whether w is the null device, which keeps nothing.
func isNull(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(st, null)
}

// Rewinder returns a function that takes back everything written so far
// (perfetto.Options.Rewind), or nil when the output cannot be taken back: a
// device, a pipe, or standard output that was not an empty file. What went
// to the null device is gone already.
func (o *File) Rewinder() func() error {
	if o.null {
		return func() error { return nil }
	}
	f, name, base := o.tmp, o.final, int64(0)
	if f == nil {
		f, name, base = o.fresh, "standard output", o.base
	}
	if f == nil {
		return nil
	}
	return func() error {
		if err := o.Flush(); err != nil {
			return fmt.Errorf("writing %s: %w", name, pathErr(err))
		}
		if err := f.Truncate(base); err != nil {
			return fmt.Errorf("truncating %s: %w", name, pathErr(err))
		}
		if _, err := f.Seek(base, io.SeekStart); err != nil {
			return fmt.Errorf("truncating %s: %w", name, pathErr(err))
		}
		return nil
	}
}

// Commit flushes the output and, for a file, renames it into place.
func (o *File) Commit() error {
	return CommitAll([]*File{o})
}

// CommitAll commits outputs so that all of them are kept or none: each is
// flushed and closed under its temporary name first, then all are renamed
// into place at once, which a signal cannot split. The caller Aborts them
// all, which removes what is left after an error.
func CommitAll(outs []*File) error {
	for _, o := range outs {
		if err := o.finish(); err != nil {
			return err
		}
	}
	return pending.commit(outs)
}

// finish flushes the output and closes its file, keeping a temporary file
// under its temporary name.
func (o *File) finish() error {
	if o.done || o.closed {
		return nil
	}
	o.closed = true
	err := o.Flush()
	o.stop()
	switch {
	case o.direct != nil:
		o.done = true
		if cerr := o.direct.Close(); err == nil {
			err = cerr
		}
	case o.tmp != nil:
		if o.old != nil && err == nil {
			err = keep(o.tmp, o.old)
		}
		if cerr := o.tmp.Close(); err == nil {
			err = cerr
		}
	default: // standard output, which Abort empties after an error
		if err == nil {
			o.done = true
			if o.fresh != nil {
				pending.doneStdout(o.fresh)
			}
		}
	}
	return writeErr(o.name, o.tmp == nil && o.direct == nil, err)
}

// Abort discards an output that was not committed, removing its temporary
// file; it is safe after Commit.
func (o *File) Abort() {
	if o.done {
		return
	}
	o.done = true
	if !o.closed {
		o.closed = true
		o.stop()
		if o.direct != nil {
			o.direct.Close()
		}
		if o.tmp != nil {
			o.tmp.Close()
		}
	}
	if o.tmp != nil {
		os.Remove(o.tmp.Name())
		pending.done(o.tmp.Name())
	}
	if o.fresh != nil {
		// Standard output was a file written at its end: leave it as it
		// was rather than half-written. The error message that follows
		// goes at that end (2>&1 shares the offset).
		o.fresh.Truncate(o.base)
		o.fresh.Seek(o.base, io.SeekStart)
		pending.doneStdout(o.fresh)
	}
}

// stop ends the writing goroutine, if there is one, and tells the
// progress that the writing is over.
func (o *File) stop() {
	if a, ok := o.bufferedWriter.(*asyncWriter); ok {
		a.stop()
	}
	if o.prog != nil {
		o.prog.Done()
	}
}
