package convert_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
)

// progressLog keeps what Options.Progress reported: the totals in the
// order they changed, and the last count of bytes done.
type progressLog struct {
	totals []int64
	done   int64
}

func (l *progressLog) report(done, total int64) {
	if len(l.totals) == 0 || l.totals[len(l.totals)-1] != total {
		l.totals = append(l.totals, total)
	}
	l.done = done
}

// TestSpeculativeRead: exporters that can take back what they wrote get the
// trace from one read when it has no orphan exit, and from a second read
// after a rewind when it has one, even one in its last record (after many
// batches were sent). Either way they get the events and repair counts of
// two passes, and the progress says how many bytes the reads took.
func TestSpeculativeRead(t *testing.T) {
	if convert.ReferenceOnly {
		t.Skip("the atrace2_reference build tag reads every trace twice")
	}
	clean := tracegen.Large(tracegen.LargeOptions{Bytes: 2 << 20, Threads: 8, Methods: 300, Seed: 5})
	late := *clean
	last := clean.Records[len(clean.Records)-1]
	late.Records = append(slices.Clip(clean.Records), tracegen.Record{
		Thread: 9999, Method: clean.Records[0].Method, Action: tracegen.Exit, CPU: 1, Wall: last.Wall})
	for _, c := range []struct {
		name    string
		data    []byte
		rewinds int
	}{
		{"clean", clean.Regular(), 0},
		{"orphan at the end", late.Regular(), 1},
	} {
		for _, serial := range []bool{false, true} {
			size := int64(len(c.data))
			two, twoTrace, err := convertBytes(t, c.data, convert.TwoReads(convert.Serial(convert.Options{}, serial)))
			if err != nil {
				t.Fatal(err)
			}
			rw := &rewindable{}
			var prog progressLog
			tr, err := convertBytesTo(t, c.data, convert.Serial(convert.Options{Progress: prog.report}, serial), rw)
			if err != nil {
				t.Fatalf("%s, serial %v: %v", c.name, serial, err)
			}
			if rw.rewinds != c.rewinds || rw.begins != 1+c.rewinds || rw.finishes != 1 {
				t.Errorf("%s, serial %v: %d rewinds, %d begins, %d finishes; want %d, %d, 1",
					c.name, serial, rw.rewinds, rw.begins, rw.finishes, c.rewinds, 1+c.rewinds)
			}
			if !slices.Equal(rw.lines, two.lines) || len(rw.lines) == 0 {
				t.Errorf("%s, serial %v: %d events, two passes give %d (or they differ)",
					c.name, serial, len(rw.lines), len(two.lines))
			}
			if got, want := tr.Stats, twoTrace.Stats; got != want {
				t.Errorf("%s, serial %v: stats %+v, two passes %+v", c.name, serial, got, want)
			}
			// One read reports the file's size as the total; a miss
			// doubles it, and the second read brings done up to it.
			want := []int64{size}
			if c.rewinds > 0 {
				want = append(want, 2*size)
			}
			if !slices.Equal(prog.totals, want) || prog.done != want[len(want)-1] {
				t.Errorf("%s, serial %v: progress totals %v ending at %d, want %v ending at the last",
					c.name, serial, prog.totals, prog.done, want)
			}
		}
	}
}

// cannotRewind is a rewindable recorder whose output cannot be taken back.
type cannotRewind struct{ rewindable }

func (*cannotRewind) canRewind() bool { return false }

// failingRewind is a rewindable recorder whose rewind fails.
type failingRewind struct{ rewindable }

func (*failingRewind) rewind() error { return errors.New("truncate: read-only file system") }

// TestSpeculativeReadFailures: an exporter that cannot rewind gets two passes
// from the start; a failed rewind, and strict mode on a trace with an
// orphan exit, stop the run before any Finish.
func TestSpeculativeReadFailures(t *testing.T) {
	if convert.ReferenceOnly {
		t.Skip("the atrace2_reference build tag reads every trace twice")
	}
	tr, err := tracegen.ParseText("version 3\nclock dual\nthread 1 main\nmethod 0x4 a.A run ()V A.java\n" +
		"1 enter 0x4 1 1\n1 exit 0x4 2 2\n1 exit 0x4 3 3\n")
	if err != nil {
		t.Fatal(err)
	}
	data := tr.Regular()

	cr := &cannotRewind{}
	var prog progressLog
	if _, err := convertBytesTo(t, data, convert.Options{Progress: prog.report}, cr); err != nil {
		t.Fatal(err)
	}
	if cr.begins != 1 || cr.finishes != 1 || len(prog.totals) != 1 || prog.totals[0] != 2*int64(len(data)) {
		t.Errorf("cannot rewind: %d begins, %d finishes, progress totals %v; want 1, 1 and twice %d",
			cr.begins, cr.finishes, prog.totals, len(data))
	}

	fr := &failingRewind{}
	if _, err := convertBytesTo(t, data, convert.Options{}, fr); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("failing rewind: err %v, want the rewind's error", err)
	}
	if fr.finishes != 0 {
		t.Errorf("failing rewind: Finish ran")
	}

	rw := &rewindable{}
	if _, err := convertBytesTo(t, data, convert.Options{Strict: true}, rw); !errors.Is(err, convert.ErrStrict) ||
		!strings.Contains(err.Error(), "1 orphan exit") {
		t.Errorf("strict: err %v, want the orphan exit named", err)
	}
	if rw.finishes != 0 || rw.rewinds != 0 {
		t.Errorf("strict: %d finishes, %d rewinds; want none", rw.finishes, rw.rewinds)
	}
}
