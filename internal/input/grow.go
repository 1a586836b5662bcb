package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/atrace2/atrace2/parser"
)

// A gzip trace, or a stream, is decompressed or copied on a goroutine of
// its own into a spool that the parser reads as it grows
// (parser.NewGrowingFile), so that the first read of the records runs
// beside the decompression instead of after it. The reference (copyFirst)
// decompresses the whole stream into the spool first and then opens it.
// TestOverlapEqualsSpool ties the two.

// wakeSlack is how much more than it asked for a reader that has to wait
// waits for: when the decompression is slower than the conversion, the
// reader, and the pipeline behind it, then wake and sleep once per MiB
// rather than once per window of the parser's (256 KiB).
const wakeSlack = 1 << 20

// growing is a spool being written by a goroutine while the parser reads
// it: a parser.Growing over a temporary file.
type growing struct {
	f     *os.File
	limit int64
	gzip  bool // a decompressed stream: a failure is a damaged stream's warning

	mu      sync.Mutex
	cond    sync.Cond // broadcast when written grows or the writing ends
	written int64     // bytes in f that a reader may read
	want    int64     // the end of the bytes a waiting reader waits for: a broadcast before written reaches it would only wake it again
	ended   bool
	err     error  // why the writing stopped early other than the input's end (a full disk, the spool limit): a reader gets it past written
	warn    string // the gzip stream was damaged: the input ends there
	stop    bool   // close asked the writer to stop

	exited chan struct{}
}

// startGrowing checks that the first bytes of br, a stream or the
// decompressed gzip stream, can start a trace and starts copying it to a
// new spool on a goroutine. It returns nil, nil when br is not for it: a
// stream that ends or fails within its first bytes, or gzip within gzip,
// which the reference path (spool, gunzip) reads. A gzip stream that
// fails later ends there with a warning; any other stream's failure is
// the reader's error, as spool's is.
func (d *data) startGrowing(br *bufio.Reader, gzip bool) (*growing, error) {
	head, err := br.Peek(64)
	if err != nil || bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		return nil, nil
	}
	if err := parser.CheckStart(head); err != nil {
		return nil, err
	}
	limit, err := spoolLimit()
	if err != nil {
		return nil, err
	}
	tmp, err := d.createSpool()
	if err != nil {
		return nil, err
	}
	g := &growing{f: tmp, limit: limit, gzip: gzip, exited: make(chan struct{})}
	g.cond.L = &g.mu
	d.close = append(d.close, g.close) // before the file's Close
	go g.fill(br)
	return g, nil
}

// fill copies br to the spool, out of br's buffer, until br ends or
// fails, the spool limit is passed or close asks it to stop.
func (g *growing) fill(br *bufio.Reader) {
	defer close(g.exited)
	for {
		b, err := br.Peek(br.Size())
		if err == bufio.ErrBufferFull {
			err = nil
		}
		n := len(b)
		var fatal error
		switch {
		case g.written+int64(n) > g.limit:
			fatal = spoolLimitError(g.limit)
		case n > 0:
			if _, werr := g.f.Write(b); werr != nil {
				fatal = fmt.Errorf("copying the input to a temporary file: %w", werr) // a full disk
			}
			br.Discard(n)
		}
		g.mu.Lock()
		switch {
		case fatal != nil:
			g.ended, g.err = true, fatal
		case err != nil:
			g.written += int64(n)
			g.ended = true
			switch {
			case err == io.EOF:
			case !g.gzip:
				g.err = err
			case !errors.Is(err, fs.ErrClosed):
				g.warn = damagedGzip(err)
			}
		default:
			g.written += int64(n)
		}
		done := g.ended || g.stop
		if done || g.written >= g.want {
			g.cond.Broadcast()
		}
		g.mu.Unlock()
		if done {
			return
		}
	}
}

// ReadAt waits until the bytes asked for are in the spool, or the writing
// has ended.
func (g *growing) ReadAt(b []byte, off int64) (int, error) {
	g.mu.Lock()
	for g.written < off+int64(len(b)) && !g.ended && !g.stop {
		g.want = off + int64(len(b)) + wakeSlack
		g.cond.Wait()
	}
	written, err := g.written, g.err
	if g.stop && err == nil {
		err = fs.ErrClosed
	}
	g.mu.Unlock()
	if err == nil {
		err = io.EOF
	}
	if off >= written {
		return 0, err
	}
	want := b
	if left := written - off; int64(len(want)) > left {
		want = want[:left]
	}
	n, rerr := g.f.ReadAt(want, off)
	if rerr == nil && n < len(b) {
		rerr = err
	}
	return n, rerr
}

// End waits until the writing has ended and returns the spool's size and
// the warning of a damaged gzip stream.
func (g *growing) End() (int64, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.ended && !g.stop {
		g.cond.Wait()
	}
	return g.written, g.warn
}

// failure returns why the writing stopped before the stream's end, other
// than a damaged gzip stream: nil if it did not.
func (g *growing) failure() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// close stops the writer, if it still runs, and waits for it.
func (g *growing) close() error {
	g.mu.Lock()
	g.stop = true
	g.cond.Broadcast()
	g.mu.Unlock()
	<-g.exited
	return nil
}

// damagedGzip is the warning of a gzip stream that fails after its start.
func damagedGzip(err error) string {
	return "the gzip stream is damaged or cut short (" + err.Error() + "); reading what was decompressed"
}
