package samples_test

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/samples"
)

const jvmHead = "JAVA PROFILE 1.0.1, created Sun Jan 13 05:57:25 2013\n--------\n"

// TestErrors checks that malformed input gives a FormatError naming the
// line and what was expected there.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name, in string
		line     int
		msg      string // regexp
	}{
		{"frame without parentheses", "TRACE 1: (thread=1)\n\tfoo\n", 2, `expected a frame <class>\.<method>\(<source>:<line>\), found "foo"`},
		{"frame without name", "TRACE 1: (thread=1)\n\t(B.java:1)\n", 2, `expected a frame`},
		{"trace twice", "TRACE 1: (thread=1)\n\ta.B.c(B.java:1)\nTRACE 1: (thread=1)\n", 3, `TRACE 1 is defined twice \(first at line 1\)`},
		{"bad trace header", "TRACE 1: (thread=x)\n", 1, `expected TRACE <n>: \[\(thread=<n>\)\]`},
		{"junk after trace header", "TRACE 1: (thread=1) junk\n", 1, `expected TRACE <n>:`},
		{"row of unknown trace", "CPU SAMPLES BEGIN (total = 1) x\n   1 100.00% 100.00%       1 300009 a.B\nCPU SAMPLES END\n", 2, `trace 300009 has no TRACE record`},
		{"no CPU section", "THREAD START (obj=1, id = 1, name=\"a\", group=\"b\")\nTHREAD END (id = 1)\n", 2, `the file ends without a CPU SAMPLES or CPU TIME section`},
		{"bad thread id", "THREAD START (obj=1, id = x, name=\"a\", group=\"b\")\n", 1, `THREAD START: thread id "x" is not a number`},
		{"thread without group", "THREAD START (obj=1, id = 1, name=\"a\")\n", 1, `expected THREAD START \(obj=<id>, id = <n>, name="<name>", group="<group>"\)`},
		{"bad obj", "THREAD START (obj=zz, id = 1, name=\"a\", group=\"b\")\n", 1, `expected THREAD START`},
		{"bad thread end", "THREAD END (id = )\n", 1, `expected THREAD END \(id = <n>\)`},
		{"header without end", "JAVA PROFILE 1.0.1, created x\nsome text\n", 2, `the file header ends without its "--------" line`},
		{"bad row", "CPU SAMPLES BEGIN (total = 1) x\n 1 2 3\n", 2, `expected a row <rank> <self>% <accum>% <count> <trace> <method>`},
		{"negative count", "CPU SAMPLES BEGIN (total = 1) x\n 1 1.00% 1.00% -1 300001 a.B\n", 2, `expected a row`},
		{"bad total", "CPU SAMPLES BEGIN (total = x) y\n", 1, `expected \(total = <n>\) after BEGIN`},
		{"indented outside trace", "THREAD END (id = 1)\n\tfoo(x)\n", 2, `indented line "foo\(x\)" outside a TRACE`},
		{"frame after empty", "TRACE 1:\n\t<empty>\n\ta.B.c(B.java:1)\n", 3, `frame after <empty> in the TRACE of line 1`},
		{"both sections", jvmHead + "CPU SAMPLES BEGIN (total = 0) x\nCPU SAMPLES END\nCPU TIME (ms) BEGIN (total = 0) x\nCPU TIME (ms) END\n", 5, `both CPU SAMPLES and CPU TIME sections`},
		{"row counts overflow", "TRACE 1:\n\ta.B.c(B.java:1)\nCPU SAMPLES BEGIN (total = 1) x\n 1 1% 1% 9223372036854775807 1 a\n 2 1% 1% 9 1 a\nCPU SAMPLES END\n", 5, `the counts of trace 1 overflow`},
		{"rows' total overflows", "TRACE 1:\n\ta.B.c(B.java:1)\nTRACE 2:\n\ta.B.d(B.java:1)\nCPU SAMPLES BEGIN (total = 1) x\n 1 1% 1% 9223372036854775807 1 a\n 2 1% 1% 9 2 a\nCPU SAMPLES END\n", 7, `the rows' counts add up to more than 9223372036854775807`},
		{"unknown trace before the overflow", "TRACE 1:\n\ta.B.c(B.java:1)\nCPU SAMPLES BEGIN (total = 1) x\n 1 1% 1% 9223372036854775807 1 a\n 2 1% 1% 9 7 a\nCPU SAMPLES END\n", 5, `trace 7 has no TRACE record`},
		{"unknown trace after the overflow", "TRACE 1:\n\ta.B.c(B.java:1)\nCPU SAMPLES BEGIN (total = 1) x\n 1 1% 1% 9223372036854775807 1 a\n 2 1% 1% 9 1 a\n 3 1% 1% 9 7 a\nCPU SAMPLES END\n", 5, `the counts of trace 1 overflow`},
		{"overflow across sections", "TRACE 1:\n\ta.B.c(B.java:1)\nCPU SAMPLES BEGIN (total = 1) x\n 1 1% 1% 9223372036854775807 1 a\nCPU SAMPLES END\nCPU SAMPLES BEGIN (total = 1) x\n 1 1% 1% 1 1 a\nCPU SAMPLES END\n", 7, `the counts of trace 1 overflow`},
		{"times' total overflows", jvmHead + "TRACE 1:\n\ta.B.c(B.java:1)\nTRACE 2:\n\ta.B.d(B.java:1)\nTRACE 3:\n\ta.B.e(B.java:1)\nCPU TIME (ms) BEGIN (total = 9223372036854) x\n 1 34.00% 1% 1 1 a\n 2 34.00% 1% 1 2 a\n 3 34.00% 1% 1 3 a\nCPU TIME (ms) END\n", 12, `the rows' counts or times add up to more than 9223372036854775807`},
		{"ART counts overflow", "1/0/0\nvoid a.B.c()/9223372036854775807/1\nvoid a.B.d()/1/1\n", 3, `the sample counts add up to more than 9223372036854775807`},
		{"ART unlisted counts overflow", "1/9223372036854775807/1\nvoid a.B.c()/1/1\n", 1, `the sample counts add up to more than 9223372036854775807`},
		{"ART counts and unlisted overflow", "1/9223372036854775807/0\nvoid a.B.c()/1/1\n", 2, `the sample counts add up to more than 9223372036854775807`},
		{"ART chain counts overflow", "1/0/0\nvoid a.B.c()/0/1/[1:9223372036854775807:]\nvoid a.B.d()/0/1/[1:1:void a.B.c()@1]\n", 3, `the sample counts add up to more than 9223372036854775807`},
		{"ART bad line", "1/0/0\nvoid a.B.c()/1/2\nbad line\n", 3, `expected <method>/<count>/<size> or <method>/<count>/<size>/\[<dexPc>:<count>:<context>#…\], found "bad line"`},
		{"ART bad count", "1/0/0\nvoid a.B.c()/x/2\n", 2, `expected <method>/<count>/<size> with decimal count and size`},
		{"ART bad chain", "1/0/0\nvoid a.B.c()/1/2/[x]\n", 2, `expected <dexPc>:<count>:<context> in the call chains, found "x"`},
		{"ART chain list unbracketed", "1/0/0\nvoid a.B.c()/1/2/1:1:\n", 2, `expected \[<dexPc>:<count>:<context>#…\] as the fourth field`},
		{"ART odd context", "1/0/0\nvoid a.B.c()/1/2/[1:1:void a.B.d()]\n", 2, `expected <method>@<dexPc> pairs in the context "void a.B.d\(\)"`},
		{"ART bad context pc", "1/0/0\nvoid a.B.c()/1/2/[1:1:void a.B.d()@x]\n", 2, `expected <method>@<dexPc> pairs`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := samples.Read(strings.NewReader(c.in))
			var fe *samples.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a *FormatError", err)
			}
			if fe.Line != c.line || !regexp.MustCompile(c.msg).MatchString(fe.Msg) {
				t.Errorf("got line %d: %s\nwant line %d: /%s/", fe.Line, fe.Msg, c.line, c.msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
}

func TestLineTooLong(t *testing.T) {
	in := "TRACE 1:\n\t" + strings.Repeat("a", 1<<20) + "\n"
	_, err := samples.Read(strings.NewReader(in))
	var fe *samples.FormatError
	if !errors.As(err, &fe) || fe.Line != 2 || fe.Msg != "line longer than 1048576 bytes" {
		t.Fatalf("got %v, want line 2: line longer than 1048576 bytes", err)
	}
}

func TestErrorText(t *testing.T) {
	_, err := samples.Read(strings.NewReader("1/0/0\nvoid a.B.c()/x/2\n"))
	want := `ART profile (Android 5.x), method mode: line 2: expected <method>/<count>/<size> with decimal count and size, found "void a.B.c()/x/2"`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

func TestUnrecognized(t *testing.T) {
	for _, in := range []string{"", "hello\n", "TRACE:\n", "TRACE x:\n", "1/2\n", "1/2/3\nfoo/1\n", "JAVA PROFILE 1.0.1\x00\x00\x00\x04", "*version\n3\n"} {
		_, err := samples.Read(strings.NewReader(in))
		if !errors.Is(err, samples.ErrUnrecognized) {
			t.Errorf("Read(%q) = %v, want ErrUnrecognized", in, err)
		}
	}
}

// TestSniff checks the format named from a file's head, plain and gzipped.
func TestSniff(t *testing.T) {
	for _, c := range []struct {
		head string
		want samples.Format
	}{
		{"JAVA PROFILE 1.0.1, created Sun Jan 13 05:57:25 2013\n\nCopyright", samples.JVMHprof},
		{"JAVA PROFILE 1.0.2\x00\x00\x00\x00\x04", samples.Unknown}, // binary hprof
		{"THREAD START (obj=1, id = 200001, name=\"main\", group=\"main\")\n", samples.DalvikHprof},
		{"THREAD END (id = 200001)\n", samples.DalvikHprof},
		{"\n\nTRACE 300001: (thread=200001)\n", samples.DalvikHprof},
		{"CPU SAMPLES BEGIN (total = 0) Wed Jul 21 12:03:46 2010\n", samples.DalvikHprof},
		{"TRACE:\n", samples.Unknown}, // systrace text
		{"12/0/3\nvoid a.B.c()/12/4\n", samples.ARTProfileMethod},
		{"12/0/3\nvoid a.B.c()/12/4/[1:12:]\n", samples.ARTProfileBoundedStack},
		{"12/0/3\nvoid a.B.c()/12/4/[1:1", samples.ARTProfileBoundedStack}, // cut in the chains
		{"12/0/3\nvoid a.B.c()/1", samples.ARTProfileMethod},               // cut early: tentative
		{"12/0/3", samples.ARTProfileMethod},
		{"12/0/3\na/b\n", samples.Unknown},
		{"12/0/x\n", samples.Unknown},
		{"", samples.Unknown},
	} {
		for _, head := range [][]byte{[]byte(c.head), gzipped(t, []byte(c.head))} {
			got, ok := samples.Sniff(head)
			if got != c.want || ok != (c.want != samples.Unknown) {
				t.Errorf("Sniff(%q) = %v, %v; want %v", head, got, ok, c.want)
			}
		}
	}
	if f, ok := samples.Sniff(bytes.Repeat([]byte{0x1f, 0x8b}, 3)); ok {
		t.Errorf("broken gzip sniffed as %v", f)
	}
}

func TestFormatString(t *testing.T) {
	for f, want := range map[samples.Format]string{
		samples.DalvikHprof:            "Dalvik SamplingProfiler text (ASCII hprof)",
		samples.JVMHprofTimes:          "JVM hprof text, cpu=times",
		samples.ARTProfileBoundedStack: "ART profile (Android 5.x), bounded-stack mode",
		samples.Format(99):             "Format(99)",
	} {
		if got := f.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", f, got, want)
		}
	}
}
