package convert_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// v2Tree is a call tree with the cases the policy repairs: a nested call,
// an unwind, an orphan exit, frames open at the end, threads interleaved,
// and tids above 16 bits (v3 records hold them truncated; V2 records whole).
const v2Tree = `version 3
clock dual
vm art
start 81734201455
thread 1 main
thread 70000 Binder:4242_2
thread 123456 RenderThread
method 0x0 android.os.Looper loop ()V Looper.java
method 0x4 android.os.Handler dispatchMessage (Landroid/os/Message;)V Handler.java
method 0x8 com.example.App fail ()V App.java
method 0xc android.os.Binder transact (ILandroid/os/Parcel;Landroid/os/Parcel;I)Z Binder.java
method 0x10 android.view.ThreadedRenderer draw ()V ThreadedRenderer.java
1 enter 0x0 0 10
1 enter 0x4 2 12
1 exit 0x4 5 17
70000 exit 0xc 4 20
70000 enter 0xc 6 22
1 enter 0x8 6 25
1 unwind 0x8 7 27
123456 enter 0x10 0 30
1 exit 0x0 9 40
70000 exit 0xc 9 41
123456 enter 0x4 3 45
`

// v2TreeEvents is the stream of v2Tree computed by hand (times in µs).
const v2TreeEvents = `main begin android.os.Looper.loop wall=10 cpu=0
main . begin android.os.Handler.dispatchMessage wall=12 cpu=2
main . end android.os.Handler.dispatchMessage wall=17 cpu=5
Binder:4242_2 begin* android.os.Binder.transact wall=0 cpu=0
Binder:4242_2 end android.os.Binder.transact wall=20 cpu=4
Binder:4242_2 begin android.os.Binder.transact wall=22 cpu=6
main . begin com.example.App.fail wall=25 cpu=6
main . end! com.example.App.fail wall=27 cpu=7
RenderThread begin android.view.ThreadedRenderer.draw wall=30 cpu=0
main end android.os.Looper.loop wall=40 cpu=9
Binder:4242_2 end android.os.Binder.transact wall=41 cpu=9
RenderThread . begin android.os.Handler.dispatchMessage wall=45 cpu=3
RenderThread . end* android.os.Handler.dispatchMessage wall=45 cpu=3
RenderThread end* android.view.ThreadedRenderer.draw wall=45 cpu=3
`

// nsRecorder keeps every event at full precision, with the thread's tid.
type nsRecorder struct {
	t     *stream.Trace
	b     *stream.Batch
	lines []string
}

func (r *nsRecorder) Begin(t *stream.Trace) error { r.t = t; return nil }
func (r *nsRecorder) Finish(*stream.Trace) error  { return nil }
func (r *nsRecorder) event(ev *stream.Event) error {
	th := r.b.Threads[ev.Thread]
	r.lines = append(r.lines, fmt.Sprintf("%d %s %v %d %s %d %d %d", th.ID, th.Name, ev.Kind, ev.Flags,
		r.b.Frames[ev.Frame].Name, ev.Depth, ev.Wall, ev.CPU))
	return nil
}

// TestV2SameAsV3 converts one call tree written as v3 and in every V2
// layout: the event streams must be identical, in ns, down to the tids.
// V2d counts ns, so it holds the tree's µs times ×1000.
func TestV2SameAsV3(t *testing.T) {
	tr, err := tracegen.ParseText(v2Tree)
	if err != nil {
		t.Fatal(err)
	}
	want, wantNs, _ := convertBoth(t, tr.Regular())
	if got := strings.Join(want, "\n") + "\n"; got != v2TreeEvents {
		t.Fatalf("v3 events:\n%s\nwant:\n%s", got, v2TreeEvents)
	}
	for name, opt := range map[string]tracegen.V2Options{
		"V2c":           {Layout: tracegen.V2c},
		"V2c-streaming": {Layout: tracegen.V2c, Streaming: true},
		"V2d":           {Layout: tracegen.V2d},
		"V2d-streaming": {Layout: tracegen.V2d, Streaming: true, SplitRecords: 1},
		"V2b":           {Layout: tracegen.V2b},
		"V2b-hybrid":    {Layout: tracegen.V2b, Hybrid: true},
	} {
		w, wNs := strings.Join(want, "\n"), strings.Join(wantNs, "\n")
		if opt.Hybrid { // android-15.0.0_r1 wrote no thread names
			unnamed := strings.NewReplacer("main", "thread 1", "Binder:4242_2", "thread 70000", "RenderThread", "thread 123456")
			w, wNs = unnamed.Replace(w), unnamed.Replace(wNs)
		}
		got, gotNs, warns := convertBoth(t, tr.V2(opt))
		if strings.Join(got, "\n") != w || strings.Join(gotNs, "\n") != wNs {
			t.Errorf("%s: events differ from v3\n got %s\nwant %s", name, strings.Join(gotNs, "\n"), wNs)
		}
		wantWarns := 0
		if opt.SplitRecords > 0 {
			wantWarns = 1 // that blocks continue a split flush
		}
		if len(warns) != wantWarns {
			t.Errorf("%s: warnings %q", name, warns)
		}
	}
}

// convertBoth converts data and returns the recorder's lines, the
// full-precision ones and the reader's warnings.
func convertBoth(t *testing.T, data []byte) (lines, ns, warnings []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tree.trace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := parser.Open(path, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, full := &recorder{}, &nsRecorder{}
	if _, err := convert.Run(f, convert.Options{}, output(rec), output(full)); err != nil {
		t.Fatal(err)
	}
	return rec.lines, full.lines, f.Header.Warnings
}

func (x *nsRecorder) Events(batch *stream.Batch) error {
	x.b = batch
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
