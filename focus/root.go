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
	t     *stream.Trace
	match []bool  // per FrameID: the frame's name matches
	known []bool  // per FrameID: match is computed (frames added after Begin)
	root  []int32 // per thread: the depth of its root, -1 outside one
	out   []stream.Event
}

var _ stream.Exporter = (*Root)(nil)

// NewRoot returns the stage that keeps the subtrees of the frames whose
// name re matches and passes them to next.
func NewRoot(next stream.Exporter, re *regexp.Regexp) *Root {
	return &Root{next: next, re: re}
}

// Begin computes the match of every frame of t and passes t on.
func (r *Root) Begin(t *stream.Trace) error {
	r.t = t
	r.match, r.known = r.match[:0], r.known[:0]
	r.grow(stream.FrameID(len(t.Frames) - 1))
	r.root = r.root[:0]
	return r.next.Begin(t)
}

// grow computes the match of the frames up to id, for a frame the tables
// did not hold at Begin.
func (r *Root) grow(id stream.FrameID) {
	for len(r.match) <= int(id) {
		f := stream.FrameID(len(r.match))
		m := int(f) < len(r.t.Frames) && r.re.MatchString(r.t.Frames[f].Name)
		r.match = append(r.match, m)
		r.known = append(r.known, int(f) < len(r.t.Frames))
	}
}

// matches reports whether frame id matches, computing it if the tables
// grew since Begin.
func (r *Root) matches(id stream.FrameID) bool {
	if int(id) >= len(r.match) {
		r.grow(id)
	}
	if !r.known[id] && int(id) < len(r.t.Frames) {
		r.match[id], r.known[id] = r.re.MatchString(r.t.Frames[id].Name), true
	}
	return r.match[id]
}

// Events passes on the events inside a root, depths rewritten.
func (r *Root) Events(evs []stream.Event) error {
	out := r.out[:0]
	for _, ev := range evs {
		if ev.Kind == stream.Enclose {
			return ErrEnclose
		}
		for int(ev.Thread) >= len(r.root) {
			r.root = append(r.root, -1)
		}
		d := r.root[ev.Thread]
		if d < 0 {
			if ev.Kind != stream.Begin || ev.Frame < 0 || !r.matches(ev.Frame) {
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
	r.out = out
	if len(out) == 0 {
		return nil
	}
	return r.next.Events(out)
}

// Finish finishes the next exporter.
func (r *Root) Finish() error { return r.next.Finish() }
