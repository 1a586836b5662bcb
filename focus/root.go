package focus

import (
	"regexp"

	"github.com/atrace2/atrace2/stream"
)

// Root is the --root stage: it keeps only the time spent inside a frame
// whose name (stream.Frame.Name, "<class>.<method>" as --mapping named
// it) matches a pattern, unanchored.
//
// Per thread, the outermost matching frame becomes a root: its begin goes
// on at depth 0, the events of its subtree at their depth less the
// root's, and its end closes it. Events outside every matching frame are
// dropped. A match inside a root (recursion) is a frame of the subtree
// like any other, so it counts once, at the outermost. Stacks that become
// equal merge in the call tree; a timeline keeps the matching frames'
// subtrees. Flags pass unchanged.
//
// The input is balanced per thread, so the depth of the thread's root (or
// none) is all the stage keeps of it: memory is a word per thread and a
// byte per frame. It needs the orphan frames opened at their thread's
// start (two reads, or one that met no orphan exit): an Enclose
// instruction is refused.
type Root struct {
	next  stream.Exporter
	re    *regexp.Regexp
	match []int8  // per FrameID: 1 when the frame's name matches, -1 when not, 0 when not yet known
	root  []int32 // per thread: the depth of its root, -1 outside one
	out   stream.Batch
}

var _ stream.Exporter = (*Root)(nil)

// NewRoot returns the stage that keeps the subtrees of the frames whose
// name re matches and passes them to next.
func NewRoot(next stream.Exporter, re *regexp.Regexp) *Root {
	return &Root{next: next, re: re}
}

// Begin forgets an earlier read and passes t on.
func (r *Root) Begin(t *stream.Trace) error {
	r.match, r.root = r.match[:0], r.root[:0]
	return r.next.Begin(t)
}

// matches reports whether frame id of frames matches, the first time by
// its name.
func (r *Root) matches(id stream.FrameID, frames []stream.Frame) bool {
	if int(id) >= len(r.match) {
		r.match = append(r.match, make([]int8, int(id)+1-len(r.match))...)
	}
	if r.match[id] == 0 {
		r.match[id] = -1
		if r.re.MatchString(frames[id].Name) {
			r.match[id] = 1
		}
	}
	return r.match[id] > 0
}

// Events passes on the events inside a root, depths rewritten.
func (r *Root) Events(b *stream.Batch) error {
	out, err := r.keep(b.Events, b.Frames, r.out.Events[:0])
	if err != nil {
		return err
	}
	r.out = stream.Batch{Events: out, Threads: b.Threads, Frames: b.Frames}
	if len(out) == 0 {
		return nil
	}
	return r.next.Events(&r.out)
}

// keep appends to out the events of evs inside a root; a function of its
// own, so that the batch takes no register in the loop.
func (r *Root) keep(evs []stream.Event, frames []stream.Frame, out []stream.Event) ([]stream.Event, error) {
	for _, ev := range evs {
		if ev.Kind == stream.Enclose {
			return out, ErrEnclose
		}
		for int(ev.Thread) >= len(r.root) {
			r.root = append(r.root, -1)
		}
		d := r.root[ev.Thread]
		if d < 0 {
			if ev.Kind != stream.Begin || ev.Frame < 0 || !r.matches(ev.Frame, frames) {
				continue
			}
			d = ev.Depth
			r.root[ev.Thread] = d
		} else if ev.Kind == stream.End && ev.Depth == d {
			r.root[ev.Thread] = -1
		}
		ev.Depth -= d
		out = append(out, ev)
	}
	return out, nil
}

// Finish finishes the next exporter.
func (r *Root) Finish(t *stream.Trace) error { return r.next.Finish(t) }
