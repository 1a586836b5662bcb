// Package progress draws a one-line progress bar on a terminal for work
// that lasts more than a second: bytes read, rate and time left.
package progress

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/atrace2/atrace2/internal/outfile"
)

// Bar draws one line on a terminal's stderr for conversions that
// last more than a second: bytes read, rate and time left (only bytes and
// rate while a pipe of unknown length is read). It is never
// shown when stderr is not a terminal, or with -q.
type Bar struct {
	w     io.Writer
	name  string
	start time.Time
	last  time.Time
	shown bool
	total int64 // of the current phase
	done  int64 // at the last report
	now   func() time.Time
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
// second, so quick conversions print nothing.
func (p *Bar) Update(done, total int64) {
	now := p.now()
	if total != p.total && done < p.done {
		// A new phase, counted from 0 again (a copy, then the conversion
		// of what it copied): its rate is timed from now. A total that
		// grows while the count goes on (a second read of the trace, which
		// turned out to be needed) is the same phase.
		p.start = now
	}
	p.total, p.done = total, done
	elapsed := now.Sub(p.start)
	if elapsed < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.shown = now, true
	rate := float64(done) / elapsed.Seconds()
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

// Clear removes the line once the work is done.
func (p *Bar) Clear() {
	if p != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
