package pprofout

import (
	"io"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/pprofweb"
)

// Report runs a pprof report (args such as -top -sample_index=wall) on a
// copy of p with pprof's own driver, in process, and returns its text: the
// tests read pprof's cumulative numbers from it.
func Report(p *profile.Profile, args ...string) (string, error) {
	return pprofweb.Report(p, args...)
}

// WriteEncoded is Builder.Write's fast path, whatever the build tag: the
// test that ties it to the library's encoder calls it.
func (b *Builder) WriteEncoded(w io.Writer) error { return b.writeEncoded(w) }

// SetFastPath turns the fast paths on or off (see the package doc) and
// returns a function that restores them.
func SetFastPath(on bool) (restore func()) {
	was := fastPath
	fastPath = on
	return func() { fastPath = was }
}

// SetStackIDs turns the encoder's stack ids (stackIDs) on or off and
// returns a function that restores them.
func SetStackIDs(on bool) (restore func()) {
	was := stackIDsOn
	stackIDsOn = on
	return func() { stackIDsOn = was }
}

// SetAsyncGzip turns compressing on a goroutine of its own (gzipper) on
// or off and returns a function that restores it.
func SetAsyncGzip(on bool) (restore func()) {
	was := asyncGzip
	asyncGzip = on
	return func() { asyncGzip = was }
}
