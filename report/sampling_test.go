package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stacks"
)

// sampledProfile is one call A of 10 ms in a trace that looks recorded in
// sampling mode (or not).
func sampledProfile(t *testing.T, s stream.Sampling) *Profile {
	t.Helper()
	tr := &stream.Trace{Name: "s.trace", HasWall: true, Sampling: s,
		Frames:  []stream.Frame{{ID: 0, Name: "com.example.A.run"}},
		Threads: []stream.Thread{{Index: 0, ID: parser.ThreadID(1), Name: "main"}}}
	a := stacks.New()
	if err := a.Begin(tr); err != nil {
		t.Fatal(err)
	}
	evs := []stream.Event{ev(stream.Begin, 0, 0, 0, 0, 0), ev(stream.End, 0, 0, 10e6, 0, 0)}
	if err := a.Events(evs); err != nil {
		t.Fatal(err)
	}
	if err := a.Finish(); err != nil {
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
