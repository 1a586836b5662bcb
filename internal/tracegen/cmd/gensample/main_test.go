package main

import (
	"bytes"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// TestStartupShape checks the properties the sample promises: its size, one
// orphan exit, no mismatched exits, a few frames left open, per-thread clocks
// that never go backwards and thread-CPU starting at 0, and determinism.
func TestStartupShape(t *testing.T) {
	tr := startup()
	if n := len(tr.Records); n < 200 || n > 5000 {
		t.Errorf("%d records, want a couple hundred to a few thousand", n)
	}
	if !bytes.Equal(tr.Regular(), startup().Regular()) {
		t.Error("startup() is not deterministic")
	}
	names := make(map[uint32]bool)
	for _, m := range tr.Methods {
		names[m.ID] = true
	}
	type state struct {
		stack     []uint32
		cpu, wall uint32
		seen      bool
	}
	threads := make(map[uint32]*state)
	orphans, mismatched, unwinds := 0, 0, 0
	for i, r := range tr.Records {
		if !names[r.Method] {
			t.Fatalf("record %d: method %#x not in the table", i, r.Method)
		}
		st := threads[r.Thread]
		if st == nil {
			st = &state{}
			threads[r.Thread] = st
			if r.CPU != 0 {
				t.Errorf("thread %d: first CPU time %d, want 0", r.Thread, r.CPU)
			}
		}
		if st.seen && (r.CPU < st.cpu || r.Wall < st.wall) {
			t.Errorf("record %d: thread %d clocks go backwards", i, r.Thread)
		}
		st.cpu, st.wall, st.seen = r.CPU, r.Wall, true
		switch r.Action {
		case tracegen.Enter:
			st.stack = append(st.stack, r.Method)
		case tracegen.Exit, tracegen.Unwind:
			if r.Action == tracegen.Unwind {
				unwinds++
			}
			switch n := len(st.stack); {
			case n == 0:
				orphans++
			case st.stack[n-1] != r.Method:
				mismatched++
			default:
				st.stack = st.stack[:n-1]
			}
		default:
			t.Errorf("record %d: action %v", i, r.Action)
		}
	}
	if orphans != 1 || mismatched != 0 || unwinds == 0 {
		t.Errorf("orphans=%d mismatched=%d unwinds=%d, want 1, 0, >0", orphans, mismatched, unwinds)
	}
	open := 0
	for _, st := range threads {
		open += len(st.stack)
	}
	if len(threads) < 4 || len(threads) > 6 || open < 3 {
		t.Errorf("%d threads with records, %d open frames; want 4-6 threads and a few open frames", len(threads), open)
	}
	if main := threads[tidMain]; main == nil || len(main.stack) != 4 {
		t.Errorf("main thread should end inside main/loop/next/nativePollOnce")
	}
}
