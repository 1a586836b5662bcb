package stacks

import (
	"testing"
	"unsafe"
)

// newSmall returns a tree builder whose tree starts at 256 nodes, taking
// every event on the reference path when reference is set. The tests of
// this package build their trees with it, as their traces are small:
// every doubling, and the pointers into the tree it invalidates, then gets
// exercised. (The benchmarks start at the command's capacity: New.)
func newSmall(reference bool) *TreeBuilder {
	a := New()
	a.firstCap, a.reference = 256, reference
	return a
}

// TestBranchSize: a node of the tree being built takes 48 bytes. Events
// reads one node per event, mostly missing the L1 cache; a field added in
// the wrong place once made it 56 bytes.
func TestBranchSize(t *testing.T) {
	if got := unsafe.Sizeof(buildNode{}); got != 48 {
		t.Errorf("buildNode takes %d bytes, want 48: reorder its fields", got)
	}
}
