package main

import (
	"sync"

	"github.com/atrace2/atrace2/internal/progress"
)

// writeProgress passes the writing of the run's outputs
// (outfile.Options.Progress) to the progress line drawn now: the
// conversion's, whose exporters may write at the end (speedscope's Finish),
// then one for the outputs written after the conversion (pprof, folded).
// That line is cleared when an output is done, before the command prints
// anything more.
type writeProgress struct {
	mu  sync.Mutex
	bar *progress.Bar // nil when no line is drawn (not a terminal, -q)
}

// set makes b the line that writes are shown on, clearing the one before.
func (w *writeProgress) set(b *progress.Bar) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bar != b {
		w.bar.Clear()
	}
	w.bar = b
}

func (w *writeProgress) Wrote(n int) {
	w.mu.Lock()
	w.bar.Wrote(n)
	w.mu.Unlock()
}

// Done clears the line: the output is complete or aborted.
func (w *writeProgress) Done() { w.set(nil) }
