package outfile

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// TestAsyncWriter writes pieces of every size across chunk boundaries,
// flushing now and then, and compares the bytes.
func TestAsyncWriter(t *testing.T) {
	var got, want bytes.Buffer
	a := newAsyncWriter(&got)
	rng := rand.New(rand.NewPCG(3, 4))
	piece := make([]byte, 3*asyncChunk)
	for i := range piece {
		piece[i] = byte(rng.Uint32())
	}
	for i := range 60 {
		n := rng.IntN(len(piece))
		if i%7 == 0 {
			n = rng.IntN(100)
		}
		p := piece[rng.IntN(len(piece)-n):][:n]
		if k, err := a.Write(p); k != n || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", n, k, err)
		}
		want.Write(p)
		if i%10 == 0 {
			if err := a.Flush(); err != nil {
				t.Fatal(err)
			}
			if got.Len() != want.Len() {
				t.Fatalf("after Flush: %d bytes written, want %d", got.Len(), want.Len())
			}
		}
	}
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	a.stop()
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("%d bytes written differ from the %d given", got.Len(), want.Len())
	}
}

type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestAsyncWriterError: a failed write comes back from a later Write or
// from Flush, never lost.
func TestAsyncWriterError(t *testing.T) {
	a := newAsyncWriter(&failAfter{n: 2 * asyncChunk})
	defer a.stop()
	p := make([]byte, asyncChunk/2)
	var err error
	for range 20 {
		if _, err = a.Write(p); err != nil {
			break
		}
	}
	if ferr := a.Flush(); ferr == nil || ferr.Error() != "disk full" {
		t.Fatalf("Flush after a failed write: %v (Write said %v)", ferr, err)
	}
}

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) - 1, nil }

// TestAsyncWriterShortWrite: a writer that takes less than it was given
// without an error is an error, as bufio says.
func TestAsyncWriterShortWrite(t *testing.T) {
	a := newAsyncWriter(shortWriter{})
	defer a.stop()
	a.Write([]byte("abc"))
	if err := a.Flush(); err != io.ErrShortWrite {
		t.Fatalf("Flush = %v, want io.ErrShortWrite", err)
	}
}

// TestAsyncMatchesBufio ties the fast path to the reference path: the same
// writes and flushes through asyncWriter and through bufio give the same
// bytes.
func TestAsyncMatchesBufio(t *testing.T) {
	write := func(async bool) []byte {
		var got bytes.Buffer
		o := &File{bufferedWriter: bufio.NewWriterSize(&got, 256<<10)}
		if async {
			o.bufferedWriter = newAsyncWriter(&got)
		}
		defer o.stop()
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range 40 {
			p := make([]byte, rng.IntN(3*asyncChunk/2))
			for j := range p {
				p[j] = byte(i + j)
			}
			if _, err := o.Write(p); err != nil {
				t.Fatal(err)
			}
			if i%9 == 0 {
				if err := o.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := o.Flush(); err != nil {
			t.Fatal(err)
		}
		return got.Bytes()
	}
	fast, reference := write(true), write(false)
	if !bytes.Equal(fast, reference) {
		t.Fatalf("asyncWriter wrote %d bytes, bufio %d, or they differ", len(fast), len(reference))
	}
}
