package pprofout

import (
	"io"
	"runtime"
)

// asyncGzip lets Write compress on a goroutine of its own while the
// encoder goes on (gzipper) when there is more than one CPU. Off, the
// encoder calls the gzip writer itself: the reference, which the build tag
// atrace2_reference selects and TestAsyncGzip compares with. Both write
// the same bytes: the gzip writer's output does not depend on how its
// input is cut into writes.
var asyncGzip = !referenceOnly

// spillSize is how much encoded output the encoder collects before it
// hands it to the gzip writer.
const spillSize = 64 << 10

// gzipper runs a gzip writer on a goroutine of its own: the encoder hands
// it full buffers and takes back empty ones, so that on two CPUs encoding
// and compressing overlap (compressing takes most of Write's time,
// BenchmarkPprofBuild/add+write). Three buffers circulate, so memory stays
// fixed and nothing is copied.
type gzipper struct {
	full chan []byte
	free chan []byte
	done chan error
}

// gzipBuffers is how many buffers circulate: one being filled, one being
// compressed and one waiting.
const gzipBuffers = 3

// newGzipper starts compressing into zw, or returns nil (the encoder
// writes to zw itself) on one CPU or when asyncGzip is off.
func newGzipper(zw io.Writer) *gzipper {
	if !asyncGzip || runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	g := &gzipper{full: make(chan []byte, gzipBuffers), free: make(chan []byte, gzipBuffers),
		done: make(chan error, 1)}
	for range gzipBuffers - 1 {
		g.free <- make([]byte, 0, spillSize+spillSize/4)
	}
	go g.run(zw)
	return g
}

// run compresses the buffers until full is closed, then reports the first
// write error; after an error it only returns the buffers.
func (g *gzipper) run(zw io.Writer) {
	var err error
	for b := range g.full {
		if err == nil {
			_, err = zw.Write(b)
		}
		g.free <- b[:0]
	}
	g.done <- err
}

// swap hands b over and returns an empty buffer.
func (g *gzipper) swap(b []byte) []byte {
	g.full <- b
	return <-g.free
}

// close waits for the buffers handed over and returns the first write
// error. The gzipper must not be used after.
func (g *gzipper) close() error {
	close(g.full)
	return <-g.done
}
