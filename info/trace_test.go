package info

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/atrace2/atrace2/parser"
)

func TestKeyElapsed(t *testing.T) {
	for _, c := range []struct {
		opts []parser.Option
		ns   int64
		from string
	}{
		{nil, 0, ""},
		{[]parser.Option{{Key: "elapsed-time-usec", Value: "22620000"}}, 22620000000, "elapsed-time-usec"},
		{[]parser.Option{{Key: "elapsed-time-nsec", Value: "1500"}}, 1500, "elapsed-time-nsec"},
		{[]parser.Option{{Key: "elapsed-time-usec", Value: "x"}}, 0, ""},
		{[]parser.Option{{Key: "elapsed-time-usec", Value: "-1"}}, 0, ""},
		{[]parser.Option{{Key: "elapsed-time-usec", Value: "9223372036854775807"}}, 0, ""},
	} {
		ns, from := keyElapsed(&parser.Header{Options: c.opts})
		if ns != c.ns || from != c.from {
			t.Errorf("%v: got %d %q, want %d %q", c.opts, ns, from, c.ns, c.from)
		}
	}
}

// TestWallTimeRow: info shows the wall time measured from the records and
// the key's, labelled, and only the measured one when the key has none.
func TestWallTimeRow(t *testing.T) {
	r := &Trace{Clock: "dual", WallNanos: 22530e6, KeyElapsedNanos: 22620e6, KeyElapsedFrom: "elapsed-time-usec"}
	var b bytes.Buffer
	r.WriteText(&b)
	if want := `(?m)^wall time +22\.53 s measured from the records; elapsed-time-usec in the key: 22\.62 s$`; !regexp.MustCompile(want).MatchString(b.String()) {
		t.Errorf("got:\n%s\nwant a line %q", b.String(), want)
	}
	r = &Trace{Clock: "wall", WallNanos: 22530e6}
	b.Reset()
	r.WriteText(&b)
	if !regexp.MustCompile(`(?m)^wall time +22\.53 s$`).MatchString(b.String()) {
		t.Errorf("got:\n%s", b.String())
	}
}
