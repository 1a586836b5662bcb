package parser

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// spool copies r to a temporary file. On Unix the file is unlinked at
// once, so it disappears even if the process is killed; elsewhere Close
// removes it. total is r's size for the progress (-1: unknown), or 0 when
// the caller counts the progress itself.
func (f *File) spool(r io.Reader, total int64) error {
	if total != 0 {
		r = f.counted(r, total)
	}
	// The first bytes must be able to start a trace before anything is
	// copied: /dev/zero or a large file of something else would otherwise
	// fill the disk before the format check.
	src := &recordingReader{r: r}
	br := bufio.NewReaderSize(src, 64<<10)
	head, err := br.Peek(64)
	if len(head) == 0 && err != nil && err != io.EOF {
		// Nothing could be read (a gzip stream broken at once): the input
		// is what was copied, nothing.
		f.ra, f.size = bytes.NewReader(nil), 0
		return &readError{err}
	}
	if err := plausibleStart(head); err != nil {
		return err
	}
	tmp, err := os.CreateTemp("", "atrace2-*.trace")
	if err != nil {
		return fmt.Errorf("copying the input to a temporary file: %w", err)
	}
	if os.Remove(tmp.Name()) == nil {
		f.close = append(f.close, tmp.Close)
	} else {
		f.close = append(f.close, func() error { tmp.Close(); return os.Remove(tmp.Name()) })
	}
	n, err := io.Copy(tmp, br)
	f.ra, f.size = tmp, n
	switch {
	case err == nil:
		return nil
	case err == src.err:
		return &readError{err}
	}
	return fmt.Errorf("copying the input to a temporary file: %w", err) // a full disk
}

// recordingReader keeps the error of its reader, to tell it from the
// temporary file's.
type recordingReader struct {
	r   io.Reader
	err error
}

func (r *recordingReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// readError is a failure to read the input that spool copies; what was
// read before it is in the copy. For a gzip stream it is only a warning.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// counted reports the progress of reading r, when there is a callback.
func (f *File) counted(r io.Reader, total int64) io.Reader {
	if f.progress == nil {
		return r
	}
	return &progressReader{r: r, total: total, report: f.progress}
}

// progressReader calls report after every MiB read, and at the end.
type progressReader struct {
	r           io.Reader
	done, total int64
	next        int64
	report      func(done, total int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if p.done >= p.next || err != nil { // and at the end
		p.report(p.done, p.total)
		p.next = p.done + 1<<20
	}
	return n, err
}

// plausibleStart checks the first bytes of an input that is about to be
// copied the way parse will: key text, SLOW, a V2 method packet, or gzip.
func plausibleStart(head []byte) error {
	switch {
	case len(head) == 0:
		return formatErr(0, emptyFile)
	case head[0] == '*', head[0] == v2MethodInfo, bytes.HasPrefix(head, []byte("SLOW")),
		len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return nil
	}
	return identify(head)
}
