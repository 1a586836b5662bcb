package pprofout

import (
	"io"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/pprofweb"
	"github.com/atrace2/atrace2/internal/reference"
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

// Reference returns b set to take the reference paths (see the package
// doc), for tests that compare them with the fast ones. Call it before
// Add.
func Reference(b *Builder) *Builder {
	b.reference = true
	return b
}

// WalkStacks returns b set to encode each node's stack by walking up its
// parents instead of from its parent's ids (stackIDs).
func WalkStacks(b *Builder) *Builder {
	b.walkStacks = true
	return b
}

// ReferenceOnly reports whether the atrace2_reference build tag turned
// every fast path off: tests that compare a fast path with its reference
// through Reference or WalkStacks then compare the reference with itself,
// and skip.
const ReferenceOnly = reference.Only
