package convert

import (
	"errors"
	"fmt"

	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// ErrNoWallClock is the error of a window (Options.Window) on a trace
// without a wall clock: the window's times are wall times.
var ErrNoWallClock = errors.New("a window (--from/--to) needs the wall clock, and the trace has thread-CPU times only")

// WindowAfterEndError is the error of a window that starts after the
// trace's last record: it would keep nothing, and an empty output reads
// as a trace without calls rather than as a window in the wrong place.
type WindowAfterEndError struct {
	From, End int64 // ns since the trace start: Window.From and Trace.WallEnd
}

func (e *WindowAfterEndError) Error() string {
	return fmt.Sprintf("window starts at %d ns, after the trace end at %d ns", e.From, e.End)
}

// focused reports whether the options ask for a focus stage.
func (opt *Options) focused() bool { return opt.Window != nil || opt.Root != nil }

// runFocused is Run with a focus: the stack policy runs on the whole
// trace, and its stream goes through the focus stages (package focus),
// the window first, to every exporter. It reads the trace twice, whatever
// the outputs can take: the stages need the orphan frames opened at their
// thread's start, which the second read does (no one-read stream.Enclose
// instruction reaches them). The unfocused path has no stage and no
// branch per record.
func runFocused(f *parser.File, opt Options, exps []stream.Exporter) (*stream.Trace, error) {
	if w := opt.Window; w != nil {
		if !f.Header.Clock.HasWall() {
			return nil, ErrNoWallClock
		}
		if w.From < 0 || w.From > w.To {
			return nil, fmt.Errorf("window [%d, %d] ns: the start must lie between 0 and the end", w.From, w.To)
		}
	}
	p, err := firstPass(f, opt, 2)
	if err != nil {
		return nil, err
	}
	if w := opt.Window; w != nil && w.From > p.t.WallEnd {
		return nil, &WindowAfterEndError{From: w.From, End: p.t.WallEnd}
	}
	chain := newFocusChain(&opt, p.t, exps)
	p.startSecond([]stream.Exporter{chain})
	return p.t, p.drive(f, p.exps, false)
}

// focusChain sends the stream through the focus stages to the exporters:
//
//	head Counter → window → root → tail Counter → exporters
//
// The counters give the totals and what the focus kept, which Finish
// writes into the Trace's Focus before the exporters' Finish.
type focusChain struct {
	stream.Exporter // the head
	head, tail      *focus.Counter
	t               *stream.Trace
	exps            []stream.Exporter
}

// newFocusChain builds the chain the options ask for, and notes the focus
// in t.Focus. A run with no exporter (Analyze) still counts.
func newFocusChain(opt *Options, t *stream.Trace, exps []stream.Exporter) *focusChain {
	c := &focusChain{t: t, exps: exps}
	c.tail = focus.NewCounter(fanOut{c})
	var e stream.Exporter = c.tail
	if opt.Root != nil {
		e = focus.NewRoot(e, opt.Root)
		t.Focus.Root = opt.Root.String()
	}
	if w := opt.Window; w != nil {
		e = focus.NewWindow(e, *w)
		t.Focus.Window, t.Focus.From, t.Focus.To = true, w.From, w.To
		if w.To > t.WallEnd { // NoEnd, or a window past the end: what it keeps
			t.Focus.To = t.WallEnd
		}
	}
	c.head = focus.NewCounter(e)
	c.Exporter = c.head
	return c
}

// fanOut is the end of a focus chain: it gives the stream to every
// exporter, and the counts to the Trace before their Finish.
type fanOut struct{ c *focusChain }

func (o fanOut) Begin(t *stream.Trace) error {
	for _, e := range o.c.exps {
		if err := e.Begin(t); err != nil {
			return err
		}
	}
	return nil
}

func (o fanOut) Events(b *stream.Batch) error { return deliver(o.c.exps, b) }

func (o fanOut) Finish(t *stream.Trace) error {
	c := o.c
	fs := &t.Focus
	fs.FramesTotal, fs.WallTotal = c.head.Frames, c.head.Wall
	fs.FramesKept, fs.WallKept = c.tail.Frames, c.tail.Wall
	for _, e := range c.exps {
		if err := e.Finish(t); err != nil {
			return err
		}
	}
	return nil
}
