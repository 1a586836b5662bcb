package pprofout_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stream"
)

// renameFrames sets the fields a mapping sets on the frames named in
// renames (by their name and signature): the trace's own name and
// descriptor, and the synthesized mark.
func renameFrames(t *testing.T, frames []stream.Frame, renames map[string]stream.Frame) {
	t.Helper()
	for i := range frames {
		f := &frames[i]
		if r, ok := renames[f.Name+" "+f.Signature]; ok {
			f.Obfuscated, f.ObfuscatedSignature, f.Synthesized = r.Obfuscated, r.ObfuscatedSignature, r.Synthesized
			delete(renames, f.Name+" "+f.Signature)
		}
	}
	if len(renames) > 0 {
		t.Fatalf("frames not found: %v", renames)
	}
}

// labelDump lists samples as "A;B calls cpu wall key=value…", stacks root
// first, labels sorted, and the samples sorted.
func labelDump(p *profile.Profile) string {
	var lines []string
	for _, s := range p.Sample {
		var labels []string
		for k, vs := range s.Label {
			labels = append(labels, k+"="+strings.Join(vs, ","))
		}
		for k, vs := range s.NumLabel {
			labels = append(labels, k+"="+strings.Trim(fmt.Sprint(vs), "[]"))
		}
		slices.Sort(labels)
		lines = append(lines, fmt.Sprintf("%s %s %s", stackOf(s), strings.Trim(fmt.Sprint(s.Value), "[]"), strings.Join(labels, " ")))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// TestRenamedFrames: a frame a mapping renamed keeps the trace's own name
// and descriptor as its SystemName (without a descriptor, the name alone),
// and a sample whose leaf frame the mapping marks synthesized carries the
// label synthesized=true; a synthesized caller does not mark its callees'
// samples. Builder.Write's encoder writes the library's bytes for it.
func TestRenamedFrames(t *testing.T) {
	tr := tree(t, writeTrace(t, t.TempDir(), "d.trace", dalvikTrace))
	renameFrames(t, tr.Trace().Frames, map[string]stream.Frame{
		"com.ex.App.onCreate (Landroid/os/Bundle;)V": {Obfuscated: "a.b.a", ObfuscatedSignature: "(Landroid/os/Bundle;)V", Synthesized: true},
		"com.ex.App.log (I)V":                        {Obfuscated: "a.b.b", ObfuscatedSignature: "(I)V"},
		"com.ex.App.log (J)V":                        {Obfuscated: "a.b.b", ObfuscatedSignature: "(J)V", Synthesized: true},
		"com.ex.Bare.run ":                           {Obfuscated: "c.a"},
	})
	newBuilder := func() *pprofout.Builder {
		b := pprofout.New(pprofout.Options{Version: testVersion})
		if err := b.Add(tr); err != nil {
			t.Fatal(err)
		}
		return b
	}
	p, err := newBuilder().Profile()
	if err != nil {
		t.Fatal(err)
	}
	checkBuilderWrite(t, p, newBuilder())
	p = roundTrip(t, p)
	var got []string
	for _, fn := range p.Function {
		got = append(got, fmt.Sprintf("%q %q %q %d", fn.Name, fn.SystemName, fn.Filename, fn.StartLine))
	}
	want := []string{
		`"com.ex.App.onCreate" "a.b.a (Landroid/os/Bundle;)V" "com/ex/App.java" 42`,
		`"com.ex.App.log" "a.b.b (I)V" "com/ex/App.java" 7`,
		`"com.ex.App.log" "a.b.b (J)V" "com/ex/App.java" 9`,
		`"com.ex.Bare.run" "c.a" "" 0`,
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("functions:\n%s\nwant:\n%s", g, w)
	}
	// onCreate runs 0-7 µs of CPU and 0-8 µs of wall time, 3 µs of each in
	// its callees.
	// The last value is offcpu: wall − CPU.
	wantSamples := `com.ex.App.onCreate 1 4000 5000 1000 synthesized=true thread=main tid=1
com.ex.App.onCreate;com.ex.App.log 1 1000 1000 0 synthesized=true thread=main tid=1
com.ex.App.onCreate;com.ex.App.log 1 1000 1000 0 thread=main tid=1
com.ex.App.onCreate;com.ex.Bare.run 1 1000 1000 0 thread=main tid=1
`
	if g := labelDump(p); g != wantSamples {
		t.Errorf("samples:\n%swant:\n%s", g, wantSamples)
	}
	wantComment := "d.trace: 2 samples carry the label synthesized=true: the mapping marks the method that ran as made by the compiler"
	if !slices.ContainsFunc(p.Comments, func(c string) bool { return strings.HasSuffix(c, wantComment) }) {
		t.Errorf("comments %q: no %q", p.Comments, wantComment)
	}
}

// TestRenamedSameName: two frames a mapping gave one name stay two
// functions when their obfuscated names differ, and the mark splits
// samples that differ in it alone.
func TestRenamedSameName(t *testing.T) {
	tr := tree(t, writeTrace(t, t.TempDir(), "d.trace", dalvikTrace))
	fr := tr.Trace().Frames
	for i := range fr { // both overloads become com.ex.App.log (I)V at one line
		if fr[i].Method == "log" {
			fr[i].Signature, fr[i].Line = "(I)V", 7
		}
	}
	renameFrames(t, fr, map[string]stream.Frame{"com.ex.App.log (I)V": {Obfuscated: "a.b.b", ObfuscatedSignature: "(I)V"}})
	for i := range fr {
		if fr[i].Method == "log" && fr[i].Obfuscated == "" {
			fr[i].Obfuscated, fr[i].ObfuscatedSignature, fr[i].Synthesized = "a.b.c", "(I)V", true
		}
	}
	b := pprofout.New(pprofout.Options{Version: testVersion})
	if err := b.Add(tr); err != nil {
		t.Fatal(err)
	}
	b2 := pprofout.New(pprofout.Options{Version: testVersion})
	if err := b2.Add(tr); err != nil {
		t.Fatal(err)
	}
	p, err := b.Profile()
	if err != nil {
		t.Fatal(err)
	}
	checkBuilderWrite(t, p, b2)
	var sys []string
	for _, fn := range p.Function {
		if fn.Name == "com.ex.App.log" {
			sys = append(sys, fn.SystemName)
		}
	}
	if strings.Join(sys, ",") != "a.b.b (I)V,a.b.c (I)V" {
		t.Errorf("functions of com.ex.App.log: system names %q, want a.b.b (I)V and a.b.c (I)V", sys)
	}
	if n := strings.Count(labelDump(p), "com.ex.App.onCreate;com.ex.App.log "); n != 2 {
		t.Errorf("%d samples onCreate;log, want 2:\n%s", n, labelDump(p))
	}
}

// TestRenamedSampled: a sampled profile's renamed frames get the same
// SystemName rule, and samples whose leaf is synthesized the label.
func TestRenamedSampled(t *testing.T) {
	p := &samples.Profile{
		Format:  samples.JVMHprofSamples,
		Threads: []samples.Thread{{ID: 1, Name: "main"}},
		Frames: []samples.Frame{
			{Name: "com.ex.App.main", Class: "com.ex.App", Method: "main", Obfuscated: "a.a.main"},
			{Name: "com.ex.App.lambda$0", Class: "com.ex.App", Method: "lambda$0", Obfuscated: "a.a.b", Synthesized: true},
			{Name: "java.lang.Thread.run", Class: "java.lang.Thread", Method: "run"},
		},
		Samples: []samples.Sample{
			{Thread: 0, Trace: 1, Stack: []int{0, 1}, Count: 3},
			{Thread: 0, Trace: 2, Stack: []int{1, 0, 2}, Count: 2},
			{Thread: 0, Trace: 3, Stack: []int{2, 1}, Count: 1},
		},
		Total:    6,
		MaxDepth: 3,
	}
	s, err := p.Tree("s.hprof")
	if err != nil {
		t.Fatal(err)
	}
	q := buildSampled(t, s)
	var got []string
	for _, fn := range q.Function {
		got = append(got, fmt.Sprintf("%q %q", fn.Name, fn.SystemName))
	}
	want := `"com.ex.App.main" "a.a.main" "com.ex.App.lambda$0" "a.a.b" "java.lang.Thread.run" ""`
	if g := strings.Join(got, " "); g != want {
		t.Errorf("functions %s, want %s", g, want)
	}
	wantSamples := `com.ex.App.lambda$0;com.ex.App.main;java.lang.Thread.run 2 thread=main thread_serial=1
com.ex.App.main;com.ex.App.lambda$0 3 synthesized=true thread=main thread_serial=1
java.lang.Thread.run;com.ex.App.lambda$0 1 synthesized=true thread=main thread_serial=1
`
	if g := labelDump(q); g != wantSamples {
		t.Errorf("samples:\n%swant:\n%s", g, wantSamples)
	}
}
