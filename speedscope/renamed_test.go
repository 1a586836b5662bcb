package speedscope

import (
	"bytes"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stream"
)

// frameList cuts the shared frames out of a file.
func frameList(t *testing.T, out []byte) string {
	t.Helper()
	s := string(out)
	i, j := strings.Index(s, `"shared":`), strings.Index(s, `,"profiles":`)
	if i < 0 || j < i {
		t.Fatalf("no shared frames in %s", s)
	}
	return s[i:j]
}

// TestRenamedFrames: a renamed frame carries the trace's own
// <class>.<method> as "obfuscated"; frames that share it and a name
// (overloads) share a frame, frames of one name with different obfuscated
// names do not, and an unrenamed frame, or one mapped to its own name, has
// no such key. The one-pass and
// the event-by-event exporters write the same file.
func TestRenamedFrames(t *testing.T) {
	tr := &stream.Trace{Name: "r.trace", HasWall: true, WallEnd: 9000,
		Threads: []stream.Thread{{Index: 0, ID: 10, Name: "main"}},
		Frames: []stream.Frame{
			{Name: "A", File: "A.java"},
			{Name: "com.ex.Foo.bar", File: "com/ex/Foo.kt", Signature: "(I)V", Obfuscated: "a.a", ObfuscatedSignature: "(I)V"},
			{Name: "com.ex.Foo.bar", File: "com/ex/Foo.kt", Signature: "(J)V", Obfuscated: "a.a", ObfuscatedSignature: "(J)V"},
			{Name: "com.ex.Foo.bar", File: "com/ex/Foo.kt", Signature: "(Z)V", Obfuscated: "a.b", ObfuscatedSignature: "(Z)V", Synthesized: true},
			{Name: "A", File: "A.java", Obfuscated: "A"}, // mapped to itself: frame 0
		},
	}
	b, e := stream.Begin, stream.End
	evs := []stream.Event{
		ev(b, 0, 0, 0, 0), ev(b, 0, 1, 1, 1000), ev(e, 0, 1, 1, 2000), ev(b, 0, 2, 1, 3000), ev(e, 0, 2, 1, 4000),
		ev(b, 0, 3, 1, 5000), ev(e, 0, 3, 1, 6000), ev(b, 0, 4, 1, 7000), ev(e, 0, 4, 1, 8000), ev(e, 0, 0, 0, 9000),
	}
	write := func(batch bool) []byte {
		var buf bytes.Buffer
		x := New(&buf, Options{})
		if err := x.Begin(tr); err != nil {
			t.Fatal(err)
		}
		if batch {
			if err := x.Events(&stream.Batch{Events: evs, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
				t.Fatal(err)
			}
		} else {
			for i := range evs {
				if err := x.Events(&stream.Batch{Events: evs[i : i+1], Threads: tr.Threads, Frames: tr.Frames}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := x.Finish(tr); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	out := write(true)
	if one := write(false); !bytes.Equal(out, one) {
		t.Errorf("event by event:\n%s\nin one batch:\n%s", one, out)
	}
	want := `"shared":{"frames":[{"name":"A","file":"A.java"},` +
		`{"name":"com.ex.Foo.bar","file":"com/ex/Foo.kt","obfuscated":"a.a"},` +
		`{"name":"com.ex.Foo.bar","file":"com/ex/Foo.kt","obfuscated":"a.b"}]}`
	if got := frameList(t, out); got != want {
		t.Errorf("frames:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(string(out), `"events":[{"type":"O","at":0,"frame":0},{"type":"O","at":1,"frame":1},{"type":"C","at":2,"frame":1},`+
		`{"type":"O","at":3,"frame":1},{"type":"C","at":4,"frame":1},{"type":"O","at":5,"frame":2},{"type":"C","at":6,"frame":2},{"type":"O","at":7,"frame":0},{"type":"C","at":8,"frame":0},{"type":"C","at":9,"frame":0}]`) {
		t.Errorf("events: %s", out)
	}
	if f := decode(t, out); len(f.Shared.Frames) != 3 || f.Shared.Frames[2].Obfuscated != "a.b" {
		t.Errorf("decoded frames %+v", f.Shared.Frames)
	}

	for i := range tr.Frames {
		tr.Frames[i].Obfuscated, tr.Frames[i].ObfuscatedSignature, tr.Frames[i].Synthesized = "", "", false
	}
	want = `"shared":{"frames":[{"name":"A","file":"A.java"},{"name":"com.ex.Foo.bar","file":"com/ex/Foo.kt"}]}`
	if got := frameList(t, write(true)); got != want {
		t.Errorf("unrenamed frames:\n%s\nwant:\n%s", got, want)
	}
}

// TestRenamedSampled: sampled profiles write the same key.
func TestRenamedSampled(t *testing.T) {
	p := &samples.Profile{
		Format:  samples.JVMHprofSamples,
		Threads: []samples.Thread{{ID: 1, Name: "main"}},
		Frames: []samples.Frame{
			{Name: "com.ex.App.main", Class: "com.ex.App", Method: "main", File: "App.java", Line: 3, HasLine: true, Obfuscated: "a.a.main"},
			{Name: "com.ex.App.main", Class: "com.ex.App", Method: "main", File: "App.java", Line: 5, HasLine: true, Obfuscated: "a.a.main"},
			{Name: "java.lang.Thread.run", Class: "java.lang.Thread", Method: "run"},
		},
		Samples: []samples.Sample{
			{Thread: 0, Trace: 1, Stack: []int{2, 0}, Count: 3},
			{Thread: 0, Trace: 2, Stack: []int{2, 1}, Count: 2},
		},
		Total:    5,
		MaxDepth: 2,
	}
	s, err := p.Tree("s.hprof")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTree(&buf, s, Options{}); err != nil {
		t.Fatal(err)
	}
	want := `"shared":{"frames":[{"name":"com.ex.App.main","file":"com/ex/App.java","obfuscated":"a.a.main"},{"name":"java.lang.Thread.run"}]}`
	if got := frameList(t, buf.Bytes()); got != want {
		t.Errorf("frames:\n%s\nwant:\n%s", got, want)
	}
}
