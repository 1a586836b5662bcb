package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// sampledProfile is one call of 10 ms of com.example.A.run in a trace that
// looks recorded in sampling mode (or not).
func sampledProfile(t *testing.T, s stream.Sampling) *Profile {
	t.Helper()
	return oneCallEach(t, s, "com.example.A.run")
}

// oneCallEach is a trace of one thread that calls each method in turn,
// 10 ms each.
func oneCallEach(t *testing.T, s stream.Sampling, methods ...string) *Profile {
	t.Helper()
	tr := &stream.Trace{Name: "s.trace", HasWall: true, Sampling: s,
		Threads: []stream.Thread{{Index: 0, ID: stream.ThreadID(1), Name: "main"}}}
	var evs []stream.Event
	for i, m := range methods {
		tr.Frames = append(tr.Frames, stream.Frame{ID: stream.FrameID(i), Name: m})
		evs = append(evs, ev(stream.Begin, 0, i, int64(i)*10e6, 0, 0), ev(stream.End, 0, i, int64(i+1)*10e6, 0, 0))
	}
	a := stacks.New()
	if err := a.Begin(tr); err != nil {
		t.Fatal(err)
	}
	if err := a.Events(&stream.Batch{Events: evs, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
		t.Fatal(err)
	}
	if err := a.Finish(tr); err != nil {
		t.Fatal(err)
	}
	p, err := NewProfile(a.Tree())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSamplingNote: top and calls say in text and JSON that a trace looks
// recorded in sampling mode, as info and the pprof comment do, and say
// nothing of an instrumented trace.
func TestSamplingNote(t *testing.T) {
	const note = "note: looks like a sampling-mode trace (about 2.96 ms between samples): calls count sampled entries and times are approximate\n"
	for _, sampled := range []bool{true, false} {
		p := sampledProfile(t, stream.Sampling{Likely: sampled, Interval: 2960000})
		top, err := p.Top(TopOptions{})
		if err != nil {
			t.Fatal(err)
		}
		calls := p.Calls(CallsOptions{Pattern: regexp.MustCompile("run")})
		for name, r := range map[string]writer{"top": top, "calls": calls} {
			var text, js bytes.Buffer
			if err := r.WriteText(&text, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(text.String(), note) != sampled {
				t.Errorf("%s, sampled %v: text\n%s", name, sampled, text.String())
			}
			if err := r.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			var h struct {
				Notes    []string `json:"notes"`
				Interval int64    `json:"sampling_interval_ns"`
			}
			if err := json.Unmarshal(js.Bytes(), &h); err != nil {
				t.Fatal(err)
			}
			want := int64(0)
			if sampled {
				want = 2960000
			}
			if h.Interval != want || (len(h.Notes) == 1) != sampled {
				t.Errorf("%s, sampled %v: JSON notes %q, sampling_interval_ns %d", name, sampled, h.Notes, h.Interval)
			}
		}
	}
}

// TestIdleMarker: top marks the well-known waiting methods in text, with a
// legend under the header, and in JSON; CSV is unchanged.
func TestIdleMarker(t *testing.T) {
	p := oneCallEach(t, stream.Sampling{}, "java.util.concurrent.locks.LockSupport.park", "com.example.A.run", "android.os.MessageQueue.nativePollOnce")
	r, err := p.Top(TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var text, js, csv bytes.Buffer
	if err := r.WriteText(&text, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n" + idleLegend + "\n",
		"  java.util.concurrent.locks.LockSupport.park (idle)\n",
		"  android.os.MessageQueue.nativePollOnce (idle)\n",
		"  com.example.A.run\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(js.String(), `"idle": true`); got != 2 {
		t.Errorf("JSON marks %d rows idle, want 2:\n%s", got, js.String())
	}
	if err := r.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(csv.String(), "idle") {
		t.Errorf("CSV changed:\n%s", csv.String())
	}
	// Without an idle row, no legend.
	r, err = oneCallEach(t, stream.Sampling{}, "com.example.A.run").Top(TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text.Reset()
	if err := r.WriteText(&text, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "idle") {
		t.Errorf("a legend without idle rows:\n%s", text.String())
	}
}

// TestIdleMarkKeptWhenShortened: the marker stays whole when the name is
// shortened to fit.
func TestIdleMarkKeptWhenShortened(t *testing.T) {
	r, err := oneCallEach(t, stream.Sampling{}, "java.util.concurrent.locks.LockSupport.parkNanos").Top(TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []TextOptions{{Width: 60}, {Width: 60, Fit: true}} {
		var text bytes.Buffer
		if err := r.WriteText(&text, opt); err != nil {
			t.Fatal(err)
		}
		want := "  …rent.locks.LockSupport.parkNanos (idle)\n"
		if opt.Fit {
			want = "  j.u.c.l.LockSupport.parkNanos (idle)\n"
		}
		if !strings.Contains(text.String(), want) {
			t.Errorf("%+v: no %q in\n%s", opt, want, text.String())
		}
	}
}
