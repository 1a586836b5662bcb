package convert_test

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// focusTrace has an orphan frame and a frame open at the end on each
// thread. Times are µs: the CPU time, then the wall time.
const focusTrace = tracegen.FocusText

func focusBytes(t *testing.T) []byte {
	t.Helper()
	tr, err := tracegen.ParseText(focusTrace)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Regular()
}

// TestWindow checks the events and the focus counts of a window over
// focusTrace, computed by hand: on main, A (12–40) straddles the window
// [15, 30] µs and C (18–22) lies in it; on worker, the orphan B (0–48)
// spans it. Cut begins carry the CPU time of the thread's next event, cut
// ends that of the last event sent.
func TestWindow(t *testing.T) {
	want := []string{
		"main begin| a.A.run wall=15 cpu=4",
		"main . begin a.C.run wall=18 cpu=4",
		"main . end a.C.run wall=22 cpu=6",
		"main end| a.A.run wall=30 cpu=6",
		"worker begin*| a.B.run wall=15 cpu=5",
		"worker end| a.B.run wall=30 cpu=5",
	}
	w := &focus.Window{From: 15_000, To: 30_000}
	for _, serial := range []bool{false, true} {
		// An aggregating output, which would take one read, gets the
		// orphan frames opened at their thread's start all the same.
		for _, out := range []stream.Exporter{&recorder{}, &atFinishRecorder{}} {
			st, err := convertBytesTo(t, focusBytes(t), convert.Serial(convert.Options{Window: w}, serial), out)
			if err != nil {
				t.Fatal(err)
			}
			got := out.(interface{ recorded() []string }).recorded()
			if !slices.Equal(got, want) {
				t.Errorf("serial %v, %T:\n%s\nwant:\n%s", serial, out, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// All frames: main B 0–10, A 12–40, C 18–22, C 45–50; worker
			// B 0–48, A 50–50. Wall: main 10+28+5, worker 48+0.
			f := st.Focus
			if !f.Window || f.From != 15_000 || f.To != 30_000 || f.FramesKept != 3 || f.FramesTotal != 6 ||
				f.WallKept != 30_000 || f.WallTotal != 91_000 {
				t.Errorf("serial %v, %T: focus %+v", serial, out, f)
			}
		}
	}
	// Analyze counts too.
	file, err := openBytes(t, focusBytes(t), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	st, err := convert.Analyze(file, convert.Options{Window: &focus.Window{From: 15_000, To: focus.NoEnd}})
	if err != nil {
		t.Fatal(err)
	}
	// main: A 15–40, C 45–50; worker: B 15–48.
	if f := st.Focus; f.To != 50_000 || f.FramesKept != 5 || f.WallKept != 25_000+5_000+33_000 || f.WallTotal != 91_000 {
		t.Errorf("Analyze: focus %+v", f)
	}
}

// atFinishRecorder is a recorder declared able to take one read.
type atFinishRecorder struct{ recorder }

func (*atFinishRecorder) oneRead() {}

func (r *recorder) recorded() []string { return r.lines }

// TestWindowWhole checks that a window over the whole trace sends what no
// window sends, on a large trace with orphan frames.
func TestWindowWhole(t *testing.T) {
	tr := tracegen.Large(tracegen.LargeOptions{Bytes: 256 << 10, Threads: 5, Methods: 100, Seed: 5})
	tr.Records = tr.Records[300:] // the enters of frames then running: orphan exits
	data := tr.Regular()
	var plain, whole recorder
	st0, err := convertBytesTo(t, data, convert.Options{}, &plain)
	if err != nil {
		t.Fatal(err)
	}
	st, err := convertBytesTo(t, data, convert.Options{Window: &focus.Window{To: focus.NoEnd}}, &whole)
	if err != nil {
		t.Fatal(err)
	}
	if st0.Stats.OrphanExits == 0 {
		t.Fatal("the trace has no orphan exits")
	}
	if !slices.Equal(plain.lines, whole.lines) {
		t.Errorf("window [0, end]: %d events, no window %d (or they differ)", len(whole.lines), len(plain.lines))
	}
	if f := st.Focus; f.FramesKept != f.FramesTotal || f.WallKept != f.WallTotal || f.WallTotal == 0 {
		t.Errorf("window [0, end]: focus %+v", f)
	}
}

// TestWindowErrors: a window needs a wall clock and a start before its
// end.
func TestWindowErrors(t *testing.T) {
	tr, err := tracegen.ParseText("version 1\nclock thread-cpu\nthread 1 main\nmethod 0x4 a.A run ()V A.java\n1 enter 0x4 10\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = convertBytesTo(t, tr.Regular(), convert.Options{Window: &focus.Window{To: 5}}, &recorder{})
	if !errors.Is(err, convert.ErrNoWallClock) {
		t.Errorf("thread-CPU-only trace: %v, want ErrNoWallClock", err)
	}
	_, err = convertBytesTo(t, focusBytes(t), convert.Options{Window: &focus.Window{From: 5, To: 4}}, &recorder{})
	if err == nil {
		t.Errorf("window [5, 4]: no error")
	}
	// The last record is at 30 µs: a window from there keeps its instant,
	// one from a nanosecond later keeps nothing and is refused.
	late, err := tracegen.ParseText("version 3\nclock dual\nthread 1 main\nmethod 0x4 a.A run ()V A.java\n1 enter 0x4 1 10\n1 exit 0x4 2 30\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := convertBytesTo(t, late.Regular(), convert.Options{Window: &focus.Window{From: 30000, To: focus.NoEnd}}, &recorder{}); err != nil {
		t.Errorf("window from the last record: %v", err)
	}
	_, err = convertBytesTo(t, late.Regular(), convert.Options{Window: &focus.Window{From: 30001, To: focus.NoEnd}}, &recorder{})
	var after *convert.WindowAfterEndError
	if !errors.As(err, &after) || after.From != 30001 || after.End != 30000 {
		t.Errorf("window after the end: %v, want WindowAfterEndError{30001, 30000}", err)
	}
}

// TestWindowThenRoot: the window applies first, then the root, and the
// counts are those of the whole trace and of what both kept.
func TestWindowThenRoot(t *testing.T) {
	var rec recorder
	st, err := convertBytesTo(t, focusBytes(t), convert.Options{Window: &focus.Window{From: 15_000, To: 30_000}, Root: regexp.MustCompile(`C\.run`)}, &rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"main begin a.C.run wall=18 cpu=4", "main end a.C.run wall=22 cpu=6"}
	if !slices.Equal(rec.lines, want) {
		t.Errorf("got %q, want %q", rec.lines, want)
	}
	if f := st.Focus; f.Root != `C\.run` || f.FramesKept != 1 || f.FramesTotal != 6 || f.WallKept != 4_000 {
		t.Errorf("focus %s", fmt.Sprintf("%+v", f))
	}
}
