package convert_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// aggregating is a recorder declared to keep everything until Finish, so
// that convert.Run reads the trace once and sends orphan exits as
// stream.Enclose events, which it records as their frame's end.
type aggregating struct{ recorder }

func (a *aggregating) oneRead() {}

// depthTrace has an orphan exit after a stack four real frames deep, then
// a stack that ends frames below the limit by an implicit exit, and one
// left open at the end.
const depthTrace = `version 3
clock dual
vm art
start 1000
thread 1 main
method 0x0 a.A a ()V A.java
method 0x4 a.A b ()V A.java
method 0x8 a.A c ()V A.java
method 0xc a.A d ()V A.java
method 0x10 a.A e ()V A.java
1 enter 0x0 1 1
1 enter 0x4 2 2
1 enter 0x8 3 3
1 enter 0xc 4 4
1 exit 0xc 5 5
1 exit 0x8 6 6
1 exit 0x4 7 7
1 exit 0x0 8 8
1 exit 0x10 9 9
1 enter 0x0 10 10
1 enter 0x4 11 11
1 enter 0x8 12 12
1 enter 0xc 13 13
1 enter 0x0 14 14
1 exit 0x4 15 15
1 enter 0x4 16 16
1 enter 0x8 17 17
1 enter 0xc 18 18
1 enter 0x10 19 19
`

// TestDepthLimit: with MaxDepth 3, the frames below the third real level
// (orphan frames not counted) are neither begun nor ended, in every way of
// reading the trace; they are counted, and the thread's event count is the
// events sent.
func TestDepthLimit(t *testing.T) {
	tr, err := tracegen.ParseText(depthTrace)
	if err != nil {
		t.Fatal(err)
	}
	data := tr.Regular()
	for _, way := range readWays(convert.Options{MaxDepth: 3}) {
		name, opt := way.name, way.opt
		for _, exp := range []interface {
			stream.Exporter
			get() *recorder
		}{&plain{}, &rewinding{}, &aggregating{}} {
			st, err := convertBytesTo(t, data, opt, exp)
			if err != nil {
				t.Fatalf("%s %T: %v", name, exp, err)
			}
			got, want := strings.Join(exp.get().lines, "\n")+"\n", depthStream
			if strings.Contains(got, "enclose") {
				want = depthStreamOneRead
			}
			if got != want {
				t.Errorf("%s %T:\n%s\nwant:\n%s", name, exp, got, want)
			}
			th := st.Threads[0]
			if st.Stats.DeepFrames != 5 || th.MaxDepth != 5 || th.Events != 18 {
				t.Errorf("%s %T: %d deep frames, max depth %d, %d events; want 5, 5, 18", name, exp, st.Stats.DeepFrames, th.MaxDepth, th.Events)
			}
		}
	}
}

// readWays gives opt set for each way convert can read a trace: the fast
// loop or the general path, pipelined or serial, and twice.
func readWays(opt convert.Options) []struct {
	name string
	opt  convert.Options
} {
	return []struct {
		name string
		opt  convert.Options
	}{
		{"fast", opt},
		{"general", convert.GeneralOnly(opt)},
		{"serial", convert.Serial(opt, true)},
		{"general serial", convert.Serial(convert.GeneralOnly(opt), true)},
		{"twice", convert.TwoReads(opt)},
	}
}

// depthStream is depthTrace's stream with MaxDepth 3 from two reads, and
// depthStreamOneRead from one, where the orphan frame comes as an
// instruction when it exits (see convert's package doc).
const (
	depthStream = `main begin* a.A.e wall=0 cpu=0
main . begin a.A.a wall=1 cpu=1
main . . begin a.A.b wall=2 cpu=2
main . . . begin a.A.c wall=3 cpu=3
main . . . end a.A.c wall=6 cpu=6
main . . end a.A.b wall=7 cpu=7
main . end a.A.a wall=8 cpu=8
main end a.A.e wall=9 cpu=9
` + depthStreamTail
	depthStreamOneRead = `main begin a.A.a wall=1 cpu=1
main . begin a.A.b wall=2 cpu=2
main . . begin a.A.c wall=3 cpu=3
main . . end a.A.c wall=6 cpu=6
main . end a.A.b wall=7 cpu=7
main end a.A.a wall=8 cpu=8
main enclose* a.A.e wall=9 cpu=9
` + depthStreamTail
	depthStreamTail = `main begin a.A.a wall=10 cpu=10
main . begin a.A.b wall=11 cpu=11
main . . begin a.A.c wall=12 cpu=12
main . . end~ a.A.c wall=15 cpu=15
main . end a.A.b wall=15 cpu=15
main . begin a.A.b wall=16 cpu=16
main . . begin a.A.c wall=17 cpu=17
main . . end* a.A.c wall=19 cpu=19
main . end* a.A.b wall=19 cpu=19
main end* a.A.a wall=19 cpu=19
`
)

type plain struct{ recorder }
type rewinding struct{ rewindable }

func (p *plain) get() *recorder       { return &p.recorder }
func (r *rewinding) get() *recorder   { return &r.recorder }
func (a *aggregating) get() *recorder { return &a.recorder }

// TestCorruptDepth: a stack that reaches convert.CorruptDepth, or a thread
// with that many orphan exits, is refused with a FormatError at the record
// that reached it.
func TestCorruptDepth(t *testing.T) {
	if testing.Short() {
		t.Skip("a million records")
	}
	data := tracegen.Nested(convert.CorruptDepth).Regular()
	for name, opt := range map[string]convert.Options{"fast": {}, "general": convert.GeneralOnly(convert.Options{})} {
		_, err := convertBytesTo(t, data, opt, &recorder{})
		var fe *parser.FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "stack depth reached 1000000") {
			t.Errorf("%s: %v, want a FormatError at depth 1000000", name, err)
		}
	}
	// One level less is a trace, with the frames below the limit folded.
	_, st, err := convertBytes(t, tracegen.Nested(convert.CorruptDepth-1).Regular(), convert.Options{})
	if err != nil || st.Stats.DeepFrames != convert.CorruptDepth-1-convert.DefaultMaxDepth {
		t.Errorf("%v, %+v", err, st.Stats)
	}
	// A thread's orphan exits count towards it too, the ones dropped past
	// the depth limit included.
	_, err = convertBytesTo(t, tracegen.Orphans(convert.CorruptDepth).Regular(), convert.Options{MaxDepth: 10}, &recorder{})
	var fe *parser.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "orphan exits on one thread reached 1000000") {
		t.Errorf("orphans: %v, want a FormatError at 1000000 orphan exits", err)
	}
	_, st, err = convertBytes(t, tracegen.Orphans(convert.CorruptDepth-1).Regular(), convert.Options{MaxDepth: 10})
	if err != nil || st.Stats.OrphanExits != 10 || st.Stats.DeepOrphans != convert.CorruptDepth-1-10 {
		t.Errorf("orphans: %v, %+v", err, st.Stats)
	}
}

// changing serves one trace until Begin, and another (of the same length)
// after: a trace that changes between convert.Run's two reads.
type changing struct {
	recorder
	data, next []byte
}

func (c *changing) ReadAt(b []byte, off int64) (int, error) {
	return bytes.NewReader(c.data).ReadAt(b, off)
}

func (c *changing) Begin(t *stream.Trace) error {
	c.data = c.next
	return c.recorder.Begin(t)
}

// TestTraceChangedWhileRead: a second read that meets an orphan exit, a
// thread or a method the first did not ends in convert.ErrChanged, not a
// panic.
func TestTraceChangedWhileRead(t *testing.T) {
	const head = "version 3\nclock dual\nvm art\nstart 1000\nthread 1 main\nthread 2 other\n" +
		"method 0x0 a.A a ()V A.java\nmethod 0x4 a.A b ()V A.java\n"
	first := head + "1 exit 0x0 1 1\n1 enter 0x4 2 2\n1 exit 0x4 3 3\n"
	for name, second := range map[string]string{
		"orphan": head + "1 exit 0x4 1 1\n1 enter 0x0 2 2\n1 exit 0x0 3 3\n",
		"thread": head + "1 exit 0x0 1 1\n2 enter 0x4 2 2\n2 exit 0x4 3 3\n",
		"method": head + "1 exit 0x0 1 1\n1 enter 0x8 2 2\n1 exit 0x8 3 3\n",
	} {
		a, err := tracegen.ParseText(first)
		if err != nil {
			t.Fatal(err)
		}
		b, err := tracegen.ParseText(second)
		if err != nil {
			t.Fatal(err)
		}
		c := &changing{data: a.Regular(), next: b.Regular()}
		if len(c.data) != len(c.next) {
			t.Fatalf("%s: the two traces differ in length", name)
		}
		f, err := parser.NewFile("x.trace", c, int64(len(c.data)), parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = convert.Run(f, convert.Options{}, convert.Output{Exporter: c})
		if !errors.Is(err, convert.ErrChanged) {
			t.Errorf("%s: %v, want %v", name, err, convert.ErrChanged)
		}
	}
}

// TestDeepExits: on a stack deeper than the frames counted by depth (1,024
// in convert), an exit finds the topmost frame of its method whether it is
// among the deepest frames or not, and an exit of a method not on the
// stack is dropped.
func TestDeepExits(t *testing.T) {
	b := tracegen.NewBuilder(tracegen.Trace{Version: 3, Clock: "dual", VM: "art"})
	th := b.Thread(1, "main")
	x, y := b.Method("a.X", "x", "()V", "X.java"), b.Method("a.Y", "y", "()V", "Y.java")
	ab := []uint32{b.Method("a.A", "a", "()V", "A.java"), b.Method("a.B", "b", "()V", "B.java")}
	z := b.Method("a.Z", "z", "()V", "Z.java")
	step := func(a tracegen.Action, m uint32) { th.Emit(a, m); th.Advance(1, 1) }
	step(tracegen.Enter, x)
	step(tracegen.Enter, y)
	for i := range 1100 {
		step(tracegen.Enter, ab[i%2])
	}
	step(tracegen.Enter, x) // at depth 1102
	for i := range 97 {
		step(tracegen.Enter, ab[i%2])
	}
	step(tracegen.Exit, z) // dropped
	step(tracegen.Exit, x) // ends 97 frames, then x at 1102
	step(tracegen.Exit, y) // ends 1100 frames, then y
	step(tracegen.Exit, x)
	data := b.Trace().Regular()
	for name, opt := range map[string]convert.Options{
		"fast":    {MaxDepth: 1_000_000},
		"general": convert.GeneralOnly(convert.Options{MaxDepth: 1_000_000}),
		"limited": {MaxDepth: 1100},
	} {
		rec, st, err := convertBytes(t, data, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := st.Stats
		if s.DroppedExits != 1 || s.ImplicitExits != 1197 || s.OpenAtEnd != 0 {
			t.Errorf("%s: %s; want 1 dropped exit, 1197 implicit exits", name, s.Summary())
		}
		want, deep := 2*1200, int64(0)
		if opt.MaxDepth == 1100 {
			want, deep = 2*1100, 100
		}
		if len(rec.lines) != want || s.DeepFrames != deep {
			t.Errorf("%s: %d events, %d deep frames; want %d, %d", name, len(rec.lines), s.DeepFrames, want, deep)
		}
	}
}

// orphanTrace has, with MaxDepth 2, two orphan exits on main that make
// frames and two past them that are dropped (one between them and a stack
// with a frame below the limit), and on other two that make frames and one
// that is dropped.
const orphanTrace = `version 3
clock dual
vm art
start 1000
thread 1 main
thread 2 other
method 0x0 a.A a ()V A.java
method 0x4 a.A b ()V A.java
method 0x8 a.A c ()V A.java
method 0xc a.A d ()V A.java
method 0x10 a.A e ()V A.java
1 enter 0x0 1 1
1 exit 0x0 2 2
1 exit 0x4 3 3
2 exit 0x4 4 4
1 enter 0x0 5 5
1 exit 0x0 6 6
1 exit 0x8 7 7
1 exit 0xc 8 8
1 enter 0x0 9 9
1 enter 0x4 10 10
1 enter 0x8 11 11
1 exit 0x8 12 12
1 exit 0x4 13 13
1 exit 0x0 14 14
1 exit 0x10 15 15
2 exit 0x8 16 16
2 exit 0xc 17 17
1 enter 0x0 18 18
`

// TestOrphanDepthLimit: once MaxDepth orphan frames enclose a thread, its
// later orphan exits are dropped and counted, in every way of reading the
// trace: the nest of orphan frames stays within the limit, as the real
// frames inside it do.
func TestOrphanDepthLimit(t *testing.T) {
	tr, err := tracegen.ParseText(orphanTrace)
	if err != nil {
		t.Fatal(err)
	}
	data := tr.Regular()
	for _, c := range readWays(convert.Options{MaxDepth: 2}) {
		for _, e := range []struct {
			exp interface {
				stream.Exporter
				get() *recorder
			}
			want string
		}{
			{&plain{}, orphanStream},
			{&rewinding{}, orphanStream},
			{&aggregating{}, orphanStreamOneRead},
		} {
			st, err := convertBytesTo(t, data, c.opt, e.exp)
			if err != nil {
				t.Fatalf("%s %T: %v", c.name, e.exp, err)
			}
			want := e.want
			if convert.ReferenceOnly || c.name == "twice" {
				want = orphanStream
			}
			if got := strings.Join(e.exp.get().lines, "\n") + "\n"; got != want {
				t.Errorf("%s %T:\n%s\nwant:\n%s", c.name, e.exp, got, want)
			}
			s, main, other := st.Stats, st.Threads[0], st.Threads[1]
			if s.OrphanExits != 4 || s.DeepOrphans != 3 || s.DeepFrames != 1 || s.OpenAtEnd != 1 || s.DroppedExits != 0 {
				t.Errorf("%s %T: %s; want 4 orphan exits, 3 beyond the limit, 1 deep frame, 1 open at the end", c.name, e.exp, s.Summary())
			}
			if main.Orphans != 2 || main.MaxDepth != 3 || main.Events != 14 || other.Orphans != 2 || other.MaxDepth != 2 || other.Events != 4 {
				t.Errorf("%s %T: threads %+v, %+v", c.name, e.exp, main, other)
			}
		}
	}
}

// orphanStream is orphanTrace's stream with MaxDepth 2 from two reads, and
// orphanStreamOneRead from one. The orphan exits of d and e on main (at 8
// and 15 µs) and of d on other (at 17 µs) are dropped, and so is c's frame
// at 11 µs, below the limit.
const (
	orphanStream = `main begin* a.A.c wall=0 cpu=0
main . begin* a.A.b wall=0 cpu=0
main . . begin a.A.a wall=1 cpu=1
main . . end a.A.a wall=2 cpu=2
main . end a.A.b wall=3 cpu=3
other begin* a.A.c wall=0 cpu=0
other . begin* a.A.b wall=0 cpu=0
other . end a.A.b wall=4 cpu=4
main . begin a.A.a wall=5 cpu=5
main . end a.A.a wall=6 cpu=6
main end a.A.c wall=7 cpu=7
main begin a.A.a wall=9 cpu=9
main . begin a.A.b wall=10 cpu=10
main . end a.A.b wall=13 cpu=13
main end a.A.a wall=14 cpu=14
other end a.A.c wall=16 cpu=16
main begin a.A.a wall=18 cpu=18
main end* a.A.a wall=18 cpu=18
`
	orphanStreamOneRead = `main begin a.A.a wall=1 cpu=1
main end a.A.a wall=2 cpu=2
main enclose* a.A.b wall=3 cpu=3
other enclose* a.A.b wall=4 cpu=4
main begin a.A.a wall=5 cpu=5
main end a.A.a wall=6 cpu=6
main enclose* a.A.c wall=7 cpu=7
main begin a.A.a wall=9 cpu=9
main . begin a.A.b wall=10 cpu=10
main . end a.A.b wall=13 cpu=13
main end a.A.a wall=14 cpu=14
other enclose* a.A.c wall=16 cpu=16
main begin a.A.a wall=18 cpu=18
main end* a.A.a wall=18 cpu=18
`
)
