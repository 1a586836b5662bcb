package input

import (
	"bufio"
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/klauspost/compress/gzip"

	"github.com/atrace2/atrace2/parser"
)

// data is an input made readable at any offset: the file itself, or a
// copy of what could be read only once or was compressed.
type data struct {
	ra    io.ReaderAt
	size  int64
	close []func() error

	compressed bool     // the input was gzip
	gzipWarn   string   // the gzip stream was damaged
	grow       *growing // the spool is still being written (see grow.go)

	// copyFirst and stdGzip take the reference paths (see the package
	// doc): the opener's choice, or every data's under the build tag
	// atrace2_reference.
	copyFirst, stdGzip bool

	progress func(done, total int64)
}

func (d *data) Close() error {
	var errs []error
	for i := len(d.close) - 1; i >= 0; i-- {
		errs = append(errs, d.close[i]())
	}
	d.close = nil
	return errors.Join(errs...)
}

// spool copies r to a temporary file. On Unix the file is unlinked at
// once, so it disappears even if the process is killed; elsewhere Close
// removes it. total is r's size for the progress (-1: unknown), or 0 when
// the caller counts the progress itself.
func (d *data) spool(r io.Reader, total int64) error {
	if total != 0 {
		r = d.counted(r, total)
	}
	limit, err := spoolLimit()
	if err != nil {
		return err
	}
	// The first bytes must be able to start a trace before anything is
	// copied: /dev/zero or a large file of something else would otherwise
	// fill the disk before the format check.
	src := &recordingReader{r: r, left: limit}
	br := bufio.NewReaderSize(src, 64<<10)
	head, err := br.Peek(64)
	if len(head) == 0 && err != nil && err != io.EOF {
		// Nothing could be read (a gzip stream broken at once): the input
		// is what was copied, nothing.
		d.ra, d.size = bytes.NewReader(nil), 0
		return &readError{err}
	}
	if err := parser.CheckStart(head); err != nil {
		return err
	}
	tmp, err := d.createSpool()
	if err != nil {
		return err
	}
	n, err := io.Copy(tmp, br)
	d.ra, d.size = tmp, n
	switch {
	case err == nil:
		return nil
	case err == errSpoolLimit:
		return spoolLimitError(limit)
	case err == src.err:
		return &readError{err}
	}
	return fmt.Errorf("copying the input to a temporary file: %w", err) // a full disk
}

// spoolLimitError says that a copy passed the spool limit.
func spoolLimitError(limit int64) error {
	return fmt.Errorf("copying the input to a temporary file: more than %s, the limit %s sets", formatSize(limit), spoolLimitEnv)
}

// createSpool creates the temporary file of a copy. On Unix the file is
// unlinked at once, so it disappears even if the process is killed;
// elsewhere d's Close removes it.
func (d *data) createSpool() (*os.File, error) {
	tmp, err := os.CreateTemp("", "atrace2-*.trace")
	if err != nil {
		return nil, fmt.Errorf("copying the input to a temporary file: %w", err)
	}
	if os.Remove(tmp.Name()) == nil {
		d.close = append(d.close, tmp.Close)
	} else {
		d.close = append(d.close, func() error { tmp.Close(); return os.Remove(tmp.Name()) })
	}
	return tmp, nil
}

// spoolLimitEnv names the environment variable that sets the largest copy
// spool makes, such as 500M or 100G; defaultSpoolLimit applies without it.
// The copy is unlinked from the start, and closed on failure: a run
// stopped by the limit or by a full disk leaves nothing in $TMPDIR.
const spoolLimitEnv = "ATRACE2_SPOOL_LIMIT"

// defaultSpoolLimit is far beyond any trace a device writes (ART's
// buffers are tens of MB; a streaming trace of an hour, a few GB), and
// stops an endless stream before it fills most disks.
const defaultSpoolLimit = 64 << 30

var errSpoolLimit = errors.New("spool limit reached")

// spoolLimit returns the limit ATRACE2_SPOOL_LIMIT sets: a number of bytes
// with an optional K, M, G or T (powers of 1024).
func spoolLimit() (int64, error) {
	v := os.Getenv(spoolLimitEnv)
	if v == "" {
		return defaultSpoolLimit, nil
	}
	num, shift := strings.TrimRight(v, "KMGTkmgt"), 0
	if suf := v[len(num):]; len(suf) == 1 {
		shift = 10 * (1 + strings.IndexByte("KMGT", byte(unicode.ToUpper(rune(suf[0])))))
	} else if suf != "" {
		num = ""
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%s=%q: expected a size in bytes such as 500M or 100G", spoolLimitEnv, v)
	}
	return n << shift, nil
}

// formatSize writes a limit for a message: "64 GiB", "1500 bytes".
func formatSize(n int64) string {
	for _, u := range []struct {
		unit  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n>>u.shift<<u.shift == n && n>>u.shift > 0 {
			return strconv.FormatInt(n>>u.shift, 10) + " " + u.unit
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// recordingReader keeps the error of its reader, to tell it from the
// temporary file's, and fails with errSpoolLimit after left bytes.
type recordingReader struct {
	r    io.Reader
	err  error
	left int64
}

func (r *recordingReader) Read(b []byte) (int, error) {
	if r.left <= 0 {
		// Only an input with more to read is over the limit.
		var one [1]byte
		n, err := io.ReadFull(r.r, one[:])
		switch {
		case n > 0:
			return 0, errSpoolLimit
		case err != io.EOF:
			r.err = err
		}
		return 0, err
	}
	if int64(len(b)) > r.left {
		b = b[:r.left]
	}
	n, err := r.r.Read(b)
	r.left -= int64(n)
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
func (d *data) counted(r io.Reader, total int64) io.Reader {
	if d.progress == nil {
		return r
	}
	return &progressReader{r: r, total: total, report: d.progress}
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

// maybeGunzip replaces a gzip input with its decompressed copy. A stream cut
// short keeps what was decompressed, with a warning: the records in it are
// as good as those of a truncated file.
func (d *data) maybeGunzip() error { return d.gunzip(0) }

// maxGzipLayers bounds gzip within gzip, which a crafted file could nest
// without end.
const maxGzipLayers = 4

func (d *data) gunzip(layer int) error {
	var magic [4]byte
	n, _ := d.ra.ReadAt(magic[:], 0)
	if n < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		return nil
	}
	if layer == maxGzipLayers {
		return fmt.Errorf("gzip: more than %d layers of gzip inside each other", maxGzipLayers)
	}
	// Progress counts the compressed bytes, whose total is known.
	compressed := d.counted(io.NewSectionReader(d.ra, 0, d.size), d.size)
	return d.gunzipFrom(compressed, layer)
}

// gunzipFrom decompresses the gzip stream r, the input's layer of gzip,
// into a copy: a growing one (grow.go) for the first layer, else a whole
// one, which is unwrapped again when it holds gzip too.
func (d *data) gunzipFrom(r io.Reader, layer int) error {
	zr, err := d.newGzipReader(r)
	if err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	if !d.copyFirst && layer == 0 {
		br := bufio.NewReaderSize(zr, 64<<10)
		g, err := d.startGrowing(br, true)
		if g != nil || err != nil {
			d.grow, d.compressed = g, g != nil
			return err
		}
		zr = br // the reference path reads what startGrowing did not
	}
	err = d.spool(zr, 0)
	var warn string
	if re := (*readError)(nil); errors.As(err, &re) {
		// The copy holds what was decompressed.
		if !errors.Is(err, fs.ErrClosed) {
			warn = damagedGzip(err)
		}
	} else if err != nil {
		return err // not a trace, or no room for the copy
	}
	if err := d.gunzip(layer + 1); err != nil { // gzip within gzip: unwrap again
		return err
	}
	if warn != "" { // else keep what an inner layer found
		d.gzipWarn = warn
	}
	d.compressed = true
	return nil
}

// stream makes a stream that can be read only once (standard input that
// is not a regular file, a pipe) readable at any offset. gzip is
// decompressed straight from the stream, and either is copied on a
// goroutine of its own while the parser reads the copy (grow.go); the
// reference (copyFirst) copies it whole and then decompresses the copy if
// it is gzip.
func (d *data) stream(r io.Reader) error {
	if d.copyFirst {
		if err := d.spool(r, -1); err != nil {
			return err
		}
		return d.maybeGunzip()
	}
	br := bufio.NewReaderSize(d.counted(r, -1), 64<<10)
	if head, _ := br.Peek(2); bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		return d.gunzipFrom(br, 0)
	}
	g, err := d.startGrowing(br, false)
	if g != nil || err != nil {
		d.grow = g
		return err
	}
	return d.spool(br, 0) // a stream of fewer than 64 bytes
}

// newGzipReader opens a gzip stream with klauspost/compress's gzip
// reader, about 1.4 times as fast as the standard library's at
// decompressing traces (see docs/performance.md), or with the reference,
// compress/gzip (stdGzip). TestGzipReaders ties the two.
func (d *data) newGzipReader(r io.Reader) (io.Reader, error) {
	if d.stdGzip {
		return stdgzip.NewReader(r)
	}
	return gzip.NewReader(r)
}
