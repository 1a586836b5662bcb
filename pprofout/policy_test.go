package pprofout_test

import (
	"strings"
	"testing"
)

// The stack-policy cases, in tracegen's text form. Records are: thread
// action method thread-CPU-µs wall-µs. The expected samples were computed
// by hand from the records (the comments show the arithmetic) and are in
// ns: "thread/tid stack calls cpu wall [synthetic]".
var policyCases = []struct {
	name, trace, want string
	repairs           string // the "repaired:" comment, "" for none
}{{
	name: "recursion",
	trace: `version 3
clock dual
vm art
thread 1 main
method 0x4 x A ()V X.java
method 0x8 x B ()V X.java
1 enter 0x4 0 0
1 enter 0x8 2 3
1 enter 0x4 3 5
1 enter 0x4 4 6
1 exit 0x4 6 10
1 exit 0x4 7 12
1 exit 0x8 8 14
1 enter 0x8 9 20
1 exit 0x8 10 22
1 exit 0x4 12 30
`,
	// A: wall 0-3, 14-20, 22-30 = 17; cpu 0-2, 8-9, 10-12 = 5.
	// A;B (2 calls): wall 3-5, 12-14, 20-22 = 6; cpu 2-3, 7-8, 9-10 = 3.
	// A;B;A: wall 5-6, 10-12 = 3; cpu 3-4, 6-7 = 2. A;B;A;A: wall 6-10, cpu 4-6.
	want: `main/1 x.A 1 5000 17000
main/1 x.A;x.B 2 3000 6000
main/1 x.A;x.B;x.A 1 2000 3000
main/1 x.A;x.B;x.A;x.A 1 2000 4000
`,
}, {
	name: "orphans-open-unwind",
	trace: `version 3
clock dual
vm art
thread 1 main
thread 2 worker
method 0x4 x A ()V X.java
method 0x8 x B ()V X.java
method 0xc x C ()V X.java
method 0x10 x D ()V X.java
method 0x14 x E ()V X.java
method 0x18 x F ()V X.java
method 0x1c x G ()V X.java
2 enter 0x1c 0 1
1 enter 0xc 1 2
1 exit 0xc 2 4
1 exit 0x8 3 5
1 exit 0x4 5 8
1 enter 0x10 6 9
1 unwind 0x10 7 11
1 enter 0x14 8 12
1 enter 0x18 9 13
2 exit 0x1c 4 20
`,
	// B then A exit with an empty stack: both ran before tracing began and
	// begin at 0 on both clocks, A (the later exit) outermost.
	// A;B: wall 0-2, 4-5 = 3; cpu 0-1, 2-3 = 2. A: wall 5-8, cpu 3-5.
	// E and F are open: they end at the trace end (wall 20, the worker's
	// last record) and at main's last CPU time (9). E: wall 12-13, cpu 8-9;
	// F: wall 13-20, cpu 9-9.
	want: `main/1 x.A 1 2000 3000 orphan
main/1 x.A;x.B 1 2000 3000 orphan
main/1 x.A;x.B;x.C 1 1000 2000
main/1 x.D 1 1000 2000
main/1 x.E 1 1000 1000 open
main/1 x.E;x.F 1 0 7000 open
worker/2 x.G 1 4000 19000
`,
	repairs: "2 orphan exits, 2 frames open at the end",
}, {
	name: "implicit-dropped-unknown",
	trace: `version 3
clock dual
vm art
thread 1 main
method 0x4 x A ()V X.java
method 0x8 x B ()V X.java
method 0xc x C ()V X.java
1 enter 0x4 0 0
1 enter 0x8 1 2
1 enter 0xc 2 4
1 exit 0x4 4 7
1 enter 0x4 5 8
1 exit 0x8 6 10
1 bad 0xc 6 10
1 enter 0x40 7 11
1 exit 0x40 8 13
1 exit 0x4 9 15
9 enter 0x8 0 16
9 exit 0x8 3 18
`,
	// The exit of A ends C and B first, at its own time (implicit exits).
	// The exit of B with only A on the stack is dropped, and so is the
	// action-3 record; method 0x40 and thread 9 are in no table.
	// A (2 calls): wall 0-2, 8-11, 13-15 = 7; cpu 0-1, 5-7, 8-9 = 4.
	// A;B: wall 2-4, cpu 1-2. A;B;C: wall 4-7, cpu 2-4.
	want: `main/1 x.A 2 4000 7000
main/1 x.A;<unknown method 0x40> 1 1000 2000
main/1 x.A;x.B 1 1000 2000
main/1 x.A;x.B;x.C 1 2000 3000
thread 9/9 x.B 1 3000 2000
`,
	repairs: "2 implicit exits, 1 dropped exit, 1 dropped bad action, 1 unknown method id, 1 unknown thread",
}, {
	name: "merged-orphan-callees",
	trace: `version 3
clock dual
vm art
thread 1 main
method 0x4 x A ()V X.java
method 0x8 x C ()V X.java
1 enter 0x8 0 1
1 exit 0x8 1 2
1 exit 0x4 2 4
1 enter 0x4 3 5
1 enter 0x8 4 6
1 exit 0x8 5 8
1 exit 0x4 6 9
`,
	// C under the orphan A and C under the later A are two call-tree nodes
	// but one sample: the orphan label is the frame's, not its callees'.
	// A orphan: wall 0-1, 2-4 = 3; cpu 0-0, 1-2 = 1. A: wall 5-6, 8-9 = 2;
	// cpu 3-4, 5-6 = 2. A;C: wall 1-2 and 6-8 = 3; cpu 0-1 and 4-5 = 2.
	want: `main/1 x.A 1 1000 3000 orphan
main/1 x.A 1 2000 2000
main/1 x.A;x.C 2 2000 3000
`,
	repairs: "1 orphan exit",
}, {
	name: "merged-method-ids",
	trace: `version 3
clock dual
vm art
thread 1 main
method 0x4 x A ()V X.java
method 0xc x M ()V X.java
method 0x10 x M ()V X.java
1 enter 0x4 0 0
1 enter 0xc 1 1
1 exit 0xc 2 3
1 enter 0x10 3 4
1 exit 0x10 4 8
1 exit 0x4 5 9
`,
	// Two method ids of one method are two frames with one location: their
	// nodes under A are one sample. A: wall 0-1, 3-4, 8-9 = 3; cpu 0-1,
	// 2-3, 4-5 = 3. A;M: wall 1-3 and 4-8 = 6; cpu 1-2 and 3-4 = 2.
	want: `main/1 x.A 1 3000 3000
main/1 x.A;x.M 2 2000 6000
`,
}}

// TestPolicyCases checks every sample of every case exactly, on both
// clocks, and the comments that name the repairs.
func TestPolicyCases(t *testing.T) {
	for _, c := range policyCases {
		t.Run(c.name, func(t *testing.T) {
			path := writeTrace(t, t.TempDir(), c.name+".trace", c.trace)
			p := build(t, path)
			if got := dump(p); got != c.want {
				t.Errorf("samples:\n%s\nwant:\n%s", got, c.want)
			}
			comments := strings.Join(p.Comments, "\n")
			if want := "converted by atrace2 " + testVersion + " from " + path; p.Comments[0] != want {
				t.Errorf("first comment %q, want %q", p.Comments[0], want)
			}
			if c.repairs != "" && !strings.Contains(comments, path+": repaired: "+c.repairs) {
				t.Errorf("comments lack the repairs %q:\n%s", c.repairs, comments)
			}
			if c.repairs == "" && strings.Contains(comments, "repaired") {
				t.Errorf("comments name repairs for a clean trace:\n%s", comments)
			}
			// The golden file pins everything else: functions, locations,
			// labels, mapping, header and comments.
			s := strings.ReplaceAll(p.String(), path, c.name+".trace")
			golden(t, c.name+".txt", s)
		})
	}
}

// TestSyntheticComment counts the samples that carry the synthetic label.
func TestSyntheticComment(t *testing.T) {
	c := policyCases[1]
	path := writeTrace(t, t.TempDir(), "o.trace", c.trace)
	p := build(t, path)
	want := path + ": 4 samples carry the label synthetic: 2 orphan frames (running before tracing began, begun at the trace start), 2 frames open at the end (ended when tracing stopped)"
	if !strings.Contains(strings.Join(p.Comments, "\n"), want) {
		t.Errorf("comments %q lack %q", p.Comments, want)
	}
}
