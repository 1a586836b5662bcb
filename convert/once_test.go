package convert_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// atFinish is a one-pass exporter that keeps the events and names their
// threads and frames only at Finish, from the complete Trace.
type atFinish struct {
	t     *stream.Trace
	evs   []stream.Event
	lines []string
}

func (a *atFinish) Begin(t *stream.Trace) error  { a.t = t; return nil }
func (a *atFinish) event(ev *stream.Event) error { a.evs = append(a.evs, *ev); return nil }
func (*atFinish) oneRead()                       {}
func (a *atFinish) Finish(t *stream.Trace) error {
	a.t = t
	for _, ev := range a.evs {
		a.lines = append(a.lines, fmt.Sprintf("%s %d %v %s %d %d", a.t.Threads[ev.Thread].Name, ev.Depth,
			ev.Kind, a.t.Frames[ev.Frame].Name, ev.Wall, ev.CPU))
	}
	return nil
}

// TestReadOnce: a streaming file read once (parser.Options.SkipStreamingScan)
// gives what a scanned one gives, for every way convert reads a trace: the
// first pass alone, two passes, one pass, and the speculative read of a
// timeline, serial and pipelined; with definitions where ART puts them and
// after the records that use them (a timeline is then sent again, from a
// second read), an unannounced thread and an unknown method.
func TestReadOnce(t *testing.T) {
	tr := tracegen.Large(tracegen.LargeOptions{Bytes: 512 << 10, Threads: 6, Methods: 200, Seed: 3})
	first := tr.Records[0]
	tr.Records = append([]tracegen.Record{
		{Thread: 4321, Method: 0xFFF0, Action: tracegen.Enter, CPU: first.CPU, Wall: first.Wall},
		{Thread: 4321, Method: 0xFFF0, Action: tracegen.Exit, CPU: first.CPU, Wall: first.Wall},
	}, tr.Records...)
	tr.Threads = append(tr.Threads, tracegen.Thread{ID: 4321, Name: "Shutdown thread"})
	skip := map[uint32]bool{4321: true}
	for _, late := range []bool{false, true} {
		// Late threads are defined only between the records.
		data := tr.Streaming(tracegen.StreamOptions{SummaryThreads: !late, SkipThreadNames: skip, DefineAfterUse: late})
		for _, serial := range []bool{true, false} {
			name := fmt.Sprintf("late=%v/serial=%v", late, serial)
			opt := convert.Serial(convert.Options{}, serial)
			once := parser.Options{SkipStreamingScan: true}
			// read is a Trace and the records its header counted, which
			// a file read once completes only at its end.
			type read struct {
				*stream.Trace
				records int64
			}
			run := func(popt parser.Options, exp stream.Exporter) read {
				t.Helper()
				f, err := openBytes(t, data, popt)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				defer f.Close()
				st, err := convert.Run(f, opt, output(exp))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return read{st, f.Header.Records}
			}
			sameTrace := func(what string, got, want read) {
				t.Helper()
				if !reflect.DeepEqual(got.Threads, want.Threads) || !reflect.DeepEqual(got.Frames, want.Frames) ||
					got.Stats != want.Stats || got.WallEnd != want.WallEnd || got.records != want.records {
					t.Errorf("%s, %s: read once %d threads, %d frames, %+v, %d records; scanned %d, %d, %+v, %d",
						name, what, len(got.Threads), len(got.Frames), got.Stats, got.records,
						len(want.Threads), len(want.Frames), want.Stats, want.records)
				}
			}

			var a, b recorder
			sameTrace("two passes", run(once, &a), run(parser.Options{}, &b))
			if !slices.Equal(a.lines, b.lines) || len(a.lines) == 0 {
				t.Errorf("%s, two passes: %d events, scanned %d (or they differ)", name, len(a.lines), len(b.lines))
			}

			var c, d atFinish
			sameTrace("one pass", run(once, &c), run(parser.Options{}, &d))
			if !slices.Equal(c.lines, d.lines) || len(c.lines) == 0 {
				t.Errorf("%s, one pass: %d events, scanned %d (or they differ)", name, len(c.lines), len(d.lines))
			}

			var e, f rewindable
			sameTrace("speculative", run(once, &e), run(parser.Options{}, &f))
			if !slices.Equal(e.lines, b.lines) || !slices.Equal(f.lines, b.lines) {
				t.Errorf("%s, speculative: %d events, scanned %d, two passes %d (or they differ)", name, len(e.lines), len(f.lines), len(b.lines))
			}
			// A late definition costs a rewind (none when the
			// atrace2_reference build tag reads every trace twice).
			if want := map[bool]int{true: 1}[late]; !convert.ReferenceOnly && (e.rewinds != want || f.rewinds != 0) {
				t.Errorf("%s, speculative: %d rewinds, scanned %d; want %d and 0", name, e.rewinds, f.rewinds, want)
			}
			unknownThreads := int64(0) // the summary lists the unannounced thread
			if late {
				unknownThreads = 1
			}
			if st := a.t.Stats; st.UnknownThreads != unknownThreads || st.UnknownMethods != 1 {
				t.Errorf("%s: repairs %+v, want an unknown method, and an unknown thread if late", name, a.t.Stats)
			}
		}
	}
}

func (x *atFinish) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
