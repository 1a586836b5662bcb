package info

import (
	"bytes"
	"regexp"
	"testing"
)

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
