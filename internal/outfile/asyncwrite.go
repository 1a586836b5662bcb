package outfile

import (
	"bufio"
	"io"
	"runtime"
	"sync"

	"github.com/atrace2/atrace2/internal/reference"
)

// bufferedWriter is what commands write their output through.
type bufferedWriter interface {
	io.Writer
	Flush() error
}

// newBuffered buffers w: with writeBehind (Options.WriteBehind) and more
// than one CPU through asyncWriter, the fast path, else through a
// bufio.Writer, its reference (see the package doc).
func newBuffered(w io.Writer, writeBehind bool) bufferedWriter {
	if writeBehind && !reference.Only && runtime.GOMAXPROCS(0) > 1 {
		return newAsyncWriter(w)
	}
	return bufio.NewWriterSize(w, 256<<10)
}

// asyncWriter hands full chunks to a goroutine that writes them, so that a
// command formats its next chunk while the kernel copies the last. A few
// chunks circulate, so memory stays fixed.
type asyncWriter struct {
	w    io.Writer
	buf  []byte
	full chan []byte // chunks to write; nil asks for an acknowledgement
	free chan []byte
	acks chan struct{}

	mu  sync.Mutex
	err error // the first write error
}

const (
	asyncChunk  = 1 << 20
	asyncChunks = 3
)

func newAsyncWriter(w io.Writer) *asyncWriter {
	a := &asyncWriter{
		w:    w,
		buf:  make([]byte, 0, asyncChunk),
		full: make(chan []byte, asyncChunks),
		free: make(chan []byte, asyncChunks),
		acks: make(chan struct{}),
	}
	for range asyncChunks - 1 {
		a.free <- make([]byte, 0, asyncChunk)
	}
	go a.run()
	return a
}

func (a *asyncWriter) run() {
	for b := range a.full {
		if b == nil {
			a.acks <- struct{}{}
			continue
		}
		if a.error() == nil {
			n, err := a.w.Write(b)
			if err == nil && n < len(b) {
				err = io.ErrShortWrite // as bufio reports it
			}
			if err != nil {
				a.mu.Lock()
				a.err = err
				a.mu.Unlock()
			}
		}
		a.free <- b[:0]
	}
	close(a.acks)
}

func (a *asyncWriter) error() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Write copies p into chunks; an error of an earlier chunk's write is
// returned here or by Flush.
func (a *asyncWriter) Write(p []byte) (int, error) {
	if err := a.error(); err != nil {
		return 0, err
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(a.buf[len(a.buf):cap(a.buf)], p)
		a.buf, p = a.buf[:len(a.buf)+k], p[k:]
		if len(a.buf) == cap(a.buf) {
			a.full <- a.buf
			a.buf = <-a.free
		}
	}
	return n, nil
}

// Flush writes what is buffered and waits until every chunk is written.
func (a *asyncWriter) Flush() error {
	if len(a.buf) > 0 {
		a.full <- a.buf
		a.buf = <-a.free
	}
	a.full <- nil
	<-a.acks
	return a.error()
}

// stop ends the goroutine; the writer must not be used after.
func (a *asyncWriter) stop() {
	close(a.full)
	for range a.acks {
	}
}
