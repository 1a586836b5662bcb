package focus_test

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/stream"
)

// recorder keeps the events it gets, copied out of the reused batch.
type recorder struct {
	t        *stream.Trace
	evs      []stream.Event
	finished bool
}

func (r *recorder) Begin(t *stream.Trace) error { r.t, r.evs = t, nil; return nil }
func (r *recorder) Events(batch *stream.Batch) error {
	evs := batch.Events
	r.evs = append(r.evs, evs...)
	return nil
}
func (r *recorder) Finish(*stream.Trace) error { r.finished = true; return nil }

// trace has frames named p.<letter> for each letter of names.
func trace(names string) *stream.Trace {
	t := &stream.Trace{HasWall: true}
	for i, c := range names {
		t.Frames = append(t.Frames, stream.Frame{ID: stream.FrameID(i), Name: "p." + string(c)})
	}
	return t
}

// events turns a script of "+X@wall" / "-X@wall" steps, one thread each,
// into a balanced stream with depths, as convert sends it. names are the
// frame letters in FrameID order.
func events(names string, th stream.ThreadIndex, script string) []stream.Event {
	var out []stream.Event
	depth := int32(0)
	for _, step := range strings.Fields(script) {
		flags := stream.Flags(0)
		if strings.HasPrefix(step, "*") { // synthetic
			flags, step = stream.Synthetic, step[1:]
		}
		var wall int64
		for _, c := range step[strings.IndexByte(step, '@')+1:] {
			wall = wall*10 + int64(c-'0')
		}
		f := stream.FrameID(strings.IndexByte(names, step[1]))
		e := stream.Event{Flags: flags, Thread: th, Frame: f, Wall: wall, CPU: wall / 2}
		if step[0] == '+' {
			e.Kind, e.Depth = stream.Begin, depth
			depth++
		} else {
			depth--
			e.Kind, e.Depth = stream.End, depth
		}
		out = append(out, e)
	}
	return out
}

// script writes events back as a script, with depths: "+A0@1".
func script(names string, evs []stream.Event) string {
	var b strings.Builder
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		if e.Flags&stream.Synthetic != 0 {
			b.WriteByte('*')
		}
		b.WriteString(map[stream.Kind]string{stream.Begin: "+", stream.End: "-", stream.Enclose: "!"}[e.Kind])
		b.WriteByte(names[e.Frame])
		b.WriteString(string(rune('0' + e.Depth)))
		b.WriteString("@")
		b.WriteString(itoa(e.Wall))
		if e.Thread != 0 {
			b.WriteString("t" + itoa(int64(e.Thread)))
		}
	}
	return b.String()
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append(d, byte('0'+n%10))
	}
	slices.Reverse(d)
	return string(d)
}

// run sends evs through a Root of pattern in batches of size batch.
func run(t *testing.T, tr *stream.Trace, pattern string, evs []stream.Event, batch int) (*recorder, *focus.Root) {
	t.Helper()
	rec := &recorder{}
	r := focus.NewRoot(rec, regexp.MustCompile(pattern))
	if err := r.Begin(tr); err != nil {
		t.Fatal(err)
	}
	for len(evs) > 0 {
		n := min(batch, len(evs))
		if err := r.Events(&stream.Batch{Events: slices.Clone(evs[:n]), Threads: tr.Threads, Frames: tr.Frames}); err != nil {
			t.Fatal(err)
		}
		evs = evs[n:]
	}
	if err := r.Finish(tr); err != nil {
		t.Fatal(err)
	}
	if !rec.finished {
		t.Fatal("Finish was not passed on")
	}
	return rec, r
}

func TestRoot(t *testing.T) {
	const names = "ABCDO"
	for _, tc := range []struct {
		name, pattern, in, want string
	}{
		{
			// A→B→A→C under --root A: one root A; B, the inner A and C
			// are inside it, one level up.
			name: "recursion", pattern: `p\.A$`,
			in:   "+D@0 +A@1 +B@2 +A@3 +C@4 -C@5 -A@6 -B@7 -A@8 -D@9",
			want: "+A0@1 +B1@2 +A2@3 +C3@4 -C3@5 -A2@6 -B1@7 -A0@8",
		},
		{
			name: "two matches in one thread", pattern: `\.B`,
			in:   "+A@0 +B@1 +C@2 -C@3 -B@4 +C@5 +D@6 +B@7 -B@8 -D@9 -C@10 -A@11",
			want: "+B0@1 +C1@2 -C1@3 -B0@4 +B0@7 -B0@8",
		},
		{
			// The orphan frame O (synthetic begin at 0) is dropped; the
			// match under it is a root; a synthetic end passes unchanged.
			name: "match under an orphan frame", pattern: `A`,
			in:   "*+O@0 +B@2 +A@3 +C@4 -C@5 -A@6 -B@7 +A@8 *-A@10 *-O@10",
			want: "+A0@3 +C1@4 -C1@5 -A0@6 +A0@8 *-A0@10",
		},
		{
			name: "the match is the outermost frame", pattern: `^p\.A$`,
			in:   "+A@0 +B@1 -B@2 -A@3 +A@4 -A@5",
			want: "+A0@0 +B1@1 -B1@2 -A0@3 +A0@4 -A0@5",
		},
		{
			name: "no match", pattern: `nothing`,
			in: "+A@0 +B@1 -B@2 -A@3", want: "",
		},
		{
			// Unanchored: "p" matches every name.
			name: "everything", pattern: `p`,
			in:   "+A@0 +B@1 -B@2 -A@3 +C@5 -C@7",
			want: "+A0@0 +B1@1 -B1@2 -A0@3 +C0@5 -C0@7",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := events(names, 0, tc.in)
			for _, batch := range []int{1, 3, len(in) + 1} {
				rec, _ := run(t, trace(names), tc.pattern, in, batch)
				if got := script(names, rec.evs); got != tc.want {
					t.Errorf("batch %d:\ngot  %s\nwant %s", batch, got, tc.want)
				}
			}
		})
	}
}

// TestRootThreads interleaves two threads: each has a root of its own.
func TestRootThreads(t *testing.T) {
	const names = "ABC"
	a := events(names, 0, "+B@0 +A@1 +C@2 -C@5 -A@6 -B@7")
	b := events(names, 1, "+A@1 +B@3 -B@4 -A@8 +C@9 -C@10")
	var in []stream.Event
	for i := range max(len(a), len(b)) {
		if i < len(a) {
			in = append(in, a[i])
		}
		if i < len(b) {
			in = append(in, b[i])
		}
	}
	rec, _ := run(t, trace(names), `A`, in, 2)
	want := "+A0@1t1 +A0@1 +B1@3t1 +C1@2 -B1@4t1 -C1@5 -A0@8t1 -A0@6"
	if got := script(names, rec.evs); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestRootGrowingFrames: a frame the tables did not hold at Begin (one
// read) is matched when it first comes.
func TestRootGrowingFrames(t *testing.T) {
	const names = "ABC"
	tr := trace("A")
	rec := &recorder{}
	r := focus.NewRoot(rec, regexp.MustCompile(`C`))
	if err := r.Begin(tr); err != nil {
		t.Fatal(err)
	}
	tr.Frames = trace(names).Frames
	if err := r.Events(&stream.Batch{Events: events(names, 0, "+A@0 +C@1 +B@2 -B@3 -C@4 -A@5"), Threads: tr.Threads, Frames: tr.Frames}); err != nil {
		t.Fatal(err)
	}
	if got, want := script(names, rec.evs), "+C0@1 +B1@2 -B1@3 -C0@4"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestRootBeginForgets: a second Begin (a read that starts over) forgets
// the roots and tallies of the first.
func TestRootBeginForgets(t *testing.T) {
	const names = "AB"
	tr := trace(names)
	rec := &recorder{}
	r := focus.NewRoot(rec, regexp.MustCompile(`A`))
	_ = r.Begin(tr)
	_ = r.Events(&stream.Batch{Events: events(names, 0, "+A@0 +B@1"), Threads: tr.Threads, Frames: tr.Frames})
	if err := r.Begin(tr); err != nil {
		t.Fatal(err)
	}
	if err := r.Events(&stream.Batch{Events: events(names, 0, "+B@0 +A@1 -A@2 -B@3"), Threads: tr.Threads, Frames: tr.Frames}); err != nil {
		t.Fatal(err)
	}
	if got, want := script(names, rec.evs), "+A0@1 -A0@2"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRootRefusesEnclose(t *testing.T) {
	rec := &recorder{}
	r := focus.NewRoot(rec, regexp.MustCompile(`A`))
	tr := trace("A")
	_ = r.Begin(tr)
	err := r.Events(&stream.Batch{Events: []stream.Event{{Kind: stream.Enclose}}, Threads: tr.Threads, Frames: tr.Frames})
	if !errors.Is(err, focus.ErrEnclose) {
		t.Fatalf("err = %v, want focus.ErrEnclose", err)
	}
}
