// Package progress draws a one-line progress bar on a terminal for work
// that lasts more than a second: bytes read, rate and time left, then the
// bytes written.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/atrace2/atrace2/internal/outfile"
)

// Bar draws one line on a terminal's stderr for conversions that
// last more than a second: bytes read, rate and time left (only bytes and
// rate while a pipe of unknown length is read), then, once the input is
// read, the bytes written to the outputs and their rate, for exporters that
// write at the end (speedscope writes all its JSON in Finish). It is never
// shown when stderr is not a terminal, or with -q. Its methods may be
// called from several goroutines: the output is written on one of its own
// (outfile's asyncWriter).
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	name  string
	start time.Time // of the current phase
	last  time.Time
	shown bool
	total int64 // of the current phase
	done  int64 // at the last report
	now   func() time.Time

	read    bool  // the input is read: the line shows the writing
	written int64 // bytes written to the outputs
	base    int64 // written when the writing phase began
	writing bool  // the writing phase began (its rate is timed from start)
	closed  bool  // cleared for good
}

// New returns a bar named name drawn on w, or nil when w is not a
// terminal. A nil *Bar draws nothing; its Update method value must not be
// taken (pass nil instead, see Func).
func New(w io.Writer, name string) *Bar {
	if !outfile.IsTerminal(w) {
		return nil
	}
	return &Bar{w: w, name: name, start: time.Now(), now: time.Now}
}

// Func returns p.Update, or nil for a nil bar: the form the parser's and the
// converter's Progress options take.
func (p *Bar) Func() func(done, total int64) {
	if p == nil {
		return nil
	}
	return p.Update
}

// Update redraws at most ten times a second, and only after the first
// second of a phase, so quick conversions print nothing. A count that
// reaches the total ends the reading: the line then shows the writing.
func (p *Bar) Update(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if total != p.total && done < p.done {
		// A new phase, counted from 0 again (a copy, then the conversion
		// of what it copied): its rate is timed from now. A total that
		// grows while the count goes on (a second read of the trace, which
		// turned out to be needed) is the same phase.
		p.start = now
	}
	p.total, p.done = total, done
	p.read = total > 0 && done >= total
	if !p.due(now, p.start) {
		return
	}
	rate := float64(done) / now.Sub(p.start).Seconds()
	if total <= 0 { // a pipe: no end to measure against
		fmt.Fprintf(p.w, "\r%s  %.1f MB  %.1f MB/s\x1b[K", p.name, float64(done)/1e6, rate/1e6)
		return
	}
	left := "?"
	if rate > 0 {
		left = (time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second).String()
	}
	const width = 30
	fill := int(width * done / total)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%%  %.1f MB/s  %s left\x1b[K", p.name,
		strings.Repeat("#", fill), strings.Repeat(" ", width-fill), 100*done/total, rate/1e6, left)
}

// due reports whether the line may be drawn now in a phase that began at
// start (a second ago at least, and 100 ms after the last drawing), and
// if so counts it drawn.
func (p *Bar) due(now, start time.Time) bool {
	if p.closed || now.Sub(start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return false
	}
	p.last, p.shown = now, true
	return true
}

// Finishing marks the input read, for a bar that only shows the writing
// of outputs made after the conversion (pprof's profile, folded stacks).
// It returns p; a nil bar stays nil.
func (p *Bar) Finishing() *Bar {
	if p != nil {
		p.mu.Lock()
		p.read = true
		p.mu.Unlock()
	}
	return p
}

// Wrote counts n bytes written to the outputs (outfile.Options.Progress
// reports each chunk). Once the input is read, the line shows the bytes
// written and the rate of the writing phase, which begins at the first
// write after the reading; like any phase, only after its first second.
func (p *Bar) Wrote(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.written += int64(n)
	if !p.read {
		return
	}
	now := p.now()
	if !p.writing {
		p.writing, p.start, p.base = true, now, p.written-int64(n)
	}
	if !p.due(now, p.start) {
		return
	}
	rate := float64(p.written-p.base) / now.Sub(p.start).Seconds()
	fmt.Fprintf(p.w, "\r%s  writing  %.1f MB  %.1f MB/s\x1b[K", p.name, float64(p.written)/1e6, rate/1e6)
}

// Clear removes the line once the work is done; nothing is drawn after.
func (p *Bar) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown && !p.closed {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	p.closed = true
}

// Writes passes the writing of a run's outputs (outfile.Options.Progress)
// to the line drawn now: the conversion's, whose exporters may write at the
// end (speedscope's Finish), then one for the outputs written after the
// conversion (pprof, folded). That line is cleared when an output is done,
// before the command prints anything more.
type Writes struct {
	mu  sync.Mutex
	bar *Bar // nil when no line is drawn (not a terminal, -q)
}

// Set makes b the line that writes are shown on, clearing the one before.
func (w *Writes) Set(b *Bar) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bar != b {
		w.bar.Clear()
	}
	w.bar = b
}

// Wrote counts n bytes written on the line drawn now.
func (w *Writes) Wrote(n int) {
	w.mu.Lock()
	w.bar.Wrote(n)
	w.mu.Unlock()
}

// Done clears the line: the output is complete or aborted.
func (w *Writes) Done() { w.Set(nil) }
