package stacks

import (
	"fmt"
	"testing"

	"github.com/atrace2/atrace2/stream"
)

// TestTree checks that the finished tree is what the builder built, and
// that there is none before Finish.
func TestTree(t *testing.T) {
	if New().Tree() != nil {
		t.Error("a tree before Begin")
	}
	a := start(t, []string{"a", "b"}, 1, []stream.Event{
		ev(stream.Begin, 0, 0, 1, 1, 0), ev(stream.Begin, 0, 1, 2, 2, 0),
		ev(stream.End, 0, 1, 3, 3, 0), ev(stream.End, 0, 0, 4, 4, 0),
	})
	if a.Tree() != nil {
		t.Error("a tree before Finish")
	}
	if err := a.Finish(a.Trace()); err != nil {
		t.Fatal(err)
	}
	tr := a.Tree()
	if tr == nil || tr.Trace() != a.Trace() || len(tr.Nodes()) != len(a.Nodes()) || &tr.Nodes()[0] != &a.Nodes()[0] {
		t.Fatalf("tree %+v does not hold the builder's nodes", tr)
	}
	last := NodeID(len(tr.Nodes()) - 1)
	if got, want := fmt.Sprint(tr.Stack(last, nil)), fmt.Sprint(a.Stack(last, nil)); got != want || got != "[0 1]" {
		t.Errorf("Stack = %s, want %s and [0 1]", got, want)
	}
}
