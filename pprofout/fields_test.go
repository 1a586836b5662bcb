package pprofout_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/pprofout"
)

// dalvikTrace has Dalvik's 6-field method lines (with first lines), an
// epoch start time, an overload pair and a method without signature.
const dalvikTrace = `version 3
clock dual
vm dalvik
start 1700000000123456
thread 1 main
method 0x4 com.ex.App onCreate (Landroid/os/Bundle;)V App.java 42
method 0x8 com.ex.App log (I)V App.java 7
method 0xc com.ex.App log (J)V App.java 9
method 0x10 com.ex.Bare run "" "" 0
1 enter 0x4 0 0
1 enter 0x8 1 1
1 exit 0x8 2 2
1 enter 0xc 3 3
1 exit 0xc 4 4
1 enter 0x10 5 5
1 exit 0x10 6 6
1 exit 0x4 7 8
`

// TestFunctions checks names, system names, source paths and lines, the
// mapping and the start time of a Dalvik trace.
func TestFunctions(t *testing.T) {
	path := writeTrace(t, t.TempDir(), "d.trace", dalvikTrace)
	p := build(t, path)
	var got []string
	for _, fn := range p.Function {
		got = append(got, fmt.Sprintf("%q %q %q %d", fn.Name, fn.SystemName, fn.Filename, fn.StartLine))
	}
	// The overloads stay two functions that share a Name (pprof's reports
	// group by Name); a method without signature has no SystemName, so
	// pprof's demangler never rewrites its Name.
	want := []string{
		`"com.ex.App.onCreate" "com.ex.App.onCreate (Landroid/os/Bundle;)V" "com/ex/App.java" 42`,
		`"com.ex.App.log" "com.ex.App.log (I)V" "com/ex/App.java" 7`,
		`"com.ex.App.log" "com.ex.App.log (J)V" "com/ex/App.java" 9`,
		`"com.ex.Bare.run" "" "" 0`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("functions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, loc := range p.Location {
		if len(loc.Line) != 1 || loc.Line[0].Line != loc.Line[0].Function.StartLine || loc.Mapping != p.Mapping[0] {
			t.Errorf("location %d: lines %v, want one line at the method's start line", loc.ID, loc.Line)
		}
	}
	m := p.Mapping[0]
	if m.File != path || !m.HasFunctions || !m.HasFilenames || !m.HasLineNumbers {
		t.Errorf("mapping %+v", m)
	}
	if p.TimeNanos != 1700000000123456000 {
		t.Errorf("time_nanos %d, want the epoch start in ns", p.TimeNanos)
	}
	if p.DurationNanos != 8000 {
		t.Errorf("duration %d, want 8000", p.DurationNanos)
	}
}

// TestARTHeader: an ART start time is monotonic, not a date, so time_nanos
// stays 0; without first lines the mapping claims no line numbers.
func TestARTHeader(t *testing.T) {
	p := build(t, writeTrace(t, t.TempDir(), "r.trace", policyCases[0].trace))
	if p.TimeNanos != 0 || p.Mapping[0].HasLineNumbers || p.DurationNanos != 30000 {
		t.Errorf("time %d, line numbers %v, duration %d; want 0, false, 30000",
			p.TimeNanos, p.Mapping[0].HasLineNumbers, p.DurationNanos)
	}
}

// TestSampleTypes checks the types and the default for each clock.
func TestSampleTypes(t *testing.T) {
	cpuOnly := strings.Replace(strings.Replace(recursionWall, "clock wall", "clock thread-cpu", 1),
		"version 2", "version 2\noption elapsed-time-usec=31", 1)
	for _, c := range []struct{ name, trace, types, dflt, values string }{
		// offcpu follows wall, which stays the default: 17000 − 5000.
		{"dual", policyCases[0].trace, "calls/count cpu/nanoseconds wall/nanoseconds offcpu/nanoseconds", "wall", "1 5000 17000 12000"},
		{"wall", recursionWall, "calls/count wall/nanoseconds", "wall", "1 17000"},
		// With one time, the text form gives the thread-CPU clock the same
		// numbers the wall-only trace has; the duration comes from the key.
		{"cpu", cpuOnly, "calls/count cpu/nanoseconds", "cpu", "1 17000"},
	} {
		p := build(t, writeTrace(t, t.TempDir(), c.name+".trace", c.trace))
		if got := sampleTypes(p); got != c.types || p.DefaultSampleType != c.dflt {
			t.Errorf("%s: sample types %q default %q, want %q %q", c.name, got, p.DefaultSampleType, c.types, c.dflt)
		}
		v := strings.Trim(fmt.Sprint(p.Sample[0].Value), "[]")
		if v != c.values {
			t.Errorf("%s: first sample %s, want %s", c.name, v, c.values)
		}
		if c.name == "cpu" && p.DurationNanos != 31000 {
			t.Errorf("cpu: duration %d, want elapsed-time-usec 31000", p.DurationNanos)
		}
	}
}

// TestWriteChecks: Write refuses an invalid profile instead of writing it.
func TestWriteChecks(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "calls", Unit: "count"}},
		Sample: []*profile.Sample{{Value: []int64{1, 2}}}}
	var buf bytes.Buffer
	err := pprofout.WriteProfile(&buf, p)
	if err == nil || !strings.Contains(err.Error(), "invalid profile") || buf.Len() != 0 {
		t.Errorf("Write of a sample with 2 values for 1 type: err %v, %d bytes written", err, buf.Len())
	}
}

// TestEmpty: a builder with no trace has no profile to give.
func TestEmpty(t *testing.T) {
	if _, err := pprofout.New(pprofout.Options{Version: "v"}).Profile(); err == nil {
		t.Error("Profile of an empty builder: no error")
	}
}
