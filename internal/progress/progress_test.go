package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressBar(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	p := &Bar{w: &out, name: "app.trace", start: now, now: func() time.Time { return now }}
	p.Update(10, 100_000_000) // within the first second: nothing
	if out.Len() != 0 {
		t.Fatalf("drew %q before a second passed", out.String())
	}
	now = now.Add(2 * time.Second)
	p.Update(50_000_000, 100_000_000)
	want := "\rapp.trace [###############               ]  50%  25.0 MB/s  2s left\x1b[K"
	if out.String() != want {
		t.Errorf("drew %q, want %q", out.String(), want)
	}
	out.Reset()
	p.Update(60_000_000, 100_000_000) // less than 100 ms later: no redraw
	if out.Len() != 0 {
		t.Fatalf("redrew %q within 100 ms", out.String())
	}
	// A total that grows as the count goes on (perfetto reading a trace
	// again after an orphan exit) keeps the clock: 70 MB in 3 s, 130 MB
	// left (5.6 s, shown in whole seconds).
	now = now.Add(time.Second)
	p.Update(70_000_000, 200_000_000)
	want = "\rapp.trace [##########                    ]  35%  23.3 MB/s  5s left\x1b[K"
	if out.String() != want {
		t.Errorf("drew %q, want %q", out.String(), want)
	}
	out.Reset()
	// A new total starts a new phase, timed from its first report: the
	// copy of a pipe (its length unknown: bytes and rate only).
	now = now.Add(2 * time.Second)
	p.Update(1, -1)
	if out.Len() != 0 {
		t.Fatalf("drew %q at the start of a phase", out.String())
	}
	now = now.Add(2 * time.Second)
	p.Update(40_000_000, -1)
	if want := "\rapp.trace  40.0 MB  20.0 MB/s\x1b[K"; out.String() != want {
		t.Errorf("drew %q, want %q", out.String(), want)
	}
	out.Reset()
	p.Clear()
	if out.String() != "\r\x1b[K" {
		t.Errorf("clear wrote %q", out.String())
	}
	if New(&out, "x") != nil || strings.Contains(out.String(), "#") {
		t.Error("a bar on a stderr that is not a terminal")
	}
}

// TestProgressWriting: bytes written while the input is read leave the
// reading line; once it is read, the line shows the writing, a phase timed
// from its first write, drawn after its first second; nothing is drawn
// after Clear.
func TestProgressWriting(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	p := &Bar{w: &out, name: "app.trace", start: now, now: func() time.Time { return now }}
	now = now.Add(2 * time.Second)
	p.Update(50_000_000, 100_000_000)
	out.Reset()
	now = now.Add(time.Second)
	p.Wrote(10_000_000) // a timeline written as it is read: still reading
	if out.Len() != 0 {
		t.Fatalf("drew %q while reading", out.String())
	}
	p.Update(100_000_000, 100_000_000) // read: the 100 % line
	out.Reset()
	now = now.Add(time.Second)
	p.Wrote(1 << 20) // the writing phase begins
	if out.Len() != 0 {
		t.Fatalf("drew %q at the start of the writing", out.String())
	}
	now = now.Add(2 * time.Second)
	p.Wrote(100_000_000)
	if want := "\rapp.trace  writing  111.0 MB  50.5 MB/s\x1b[K"; out.String() != want {
		t.Errorf("drew %q, want %q", out.String(), want)
	}
	out.Reset()
	p.Clear()
	now = now.Add(time.Second)
	p.Wrote(1)
	if out.String() != "\r\x1b[K" {
		t.Errorf("clear, then a write: %q", out.String())
	}

	// A bar for the writing after the conversion (Finishing).
	out.Reset()
	q := (&Bar{w: &out, name: "app.trace", start: now, now: func() time.Time { return now }}).Finishing()
	q.Wrote(1)
	now = now.Add(1500 * time.Millisecond)
	q.Wrote(3_000_000)
	if want := "\rapp.trace  writing  3.0 MB  2.0 MB/s\x1b[K"; out.String() != want {
		t.Errorf("after Finishing: drew %q, want %q", out.String(), want)
	}
	var nilBar *Bar
	nilBar.Finishing().Wrote(1)
	nilBar.Clear()
}
