package driver

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/internal/testutil/sampled"
	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/samples"
)

// tinyMap is an R8 map that any reading of the format resolves alike (the
// issue's policy and a name-only reader): two classes, methods without
// overloads, no line ranges and no metadata.
const tinyMap = `# compiler: R8
# pg_map_id: 1234567
com.ex.App -> a.a:
    void main(java.lang.String[]) -> b
    void run() -> c
com.ex.Util -> a.b:
    int helper(int) -> a
`

// frameLines lists frames as "name sig file:line [obfuscated obfsig]".
func frameLines(p *samples.Profile) string {
	var b strings.Builder
	for _, f := range p.Frames {
		fmt.Fprintf(&b, "%s %q %s:%d", f.Name, f.Signature, f.File, f.Line)
		if f.Obfuscated != "" || f.Synthesized {
			fmt.Fprintf(&b, " [%s %q %v]", f.Obfuscated, f.ObfuscatedSignature, f.Synthesized)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// readMap reads tinyMap for the methods of p.
func readMap(t *testing.T, p *samples.Profile) *mapping.Map {
	t.Helper()
	m, err := mapping.Read(strings.NewReader(tinyMap), "mapping.txt", mappingMethods(p))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDeobfuscateHprof: hprof frames (no descriptors) are resolved by
// name, keep no descriptor, their lines and the file's own name; a frame
// per line is one method in the counts; a class the map lacks and a frame
// without a class are left alone.
func TestDeobfuscateHprof(t *testing.T) {
	p := &samples.Profile{
		Format:  samples.JVMHprofSamples,
		Threads: []samples.Thread{{ID: 1, Name: "main"}},
		Frames: []samples.Frame{
			{Name: "java.lang.Thread.run", Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 700, HasLine: true},
			{Name: "a.a.b", Class: "a.a", Method: "b", File: "App.java", Line: 3, HasLine: true},
			{Name: "a.a.b", Class: "a.a", Method: "b", File: "App.java", Line: 5, HasLine: true},
			{Name: "a.b.a", Class: "a.b", Method: "a", File: "Util.java", Line: 1, HasLine: true},
			{Name: "<Unknown Method>", Method: "<Unknown Method>"},
		},
		Samples: []samples.Sample{
			{Thread: 0, Trace: 1, Stack: []int{0, 1, 3}, Count: 3},
			{Thread: 0, Trace: 2, Stack: []int{0, 2}, Count: 2},
			{Thread: 0, Trace: 3, Stack: []int{4}, Count: 1},
		},
		Total:    6,
		MaxDepth: 3,
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	c := rename(p, readMap(t, p))
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	want := `java.lang.Thread.run "" Thread.java:700
com.ex.App.main "" App.java:3 [a.a.b "" false]
com.ex.App.main "" App.java:5 [a.a.b "" false]
com.ex.Util.helper "" Util.java:1 [a.b.a "" false]
<Unknown Method> "" :0
`
	if got := frameLines(p); got != want {
		t.Errorf("frames:\n%swant:\n%s", got, want)
	}
	if want := (mapping.Counts{mapping.Untouched: 1, mapping.Mapped: 2}); c != want {
		t.Errorf("counts %v, want %v", c, want)
	}
}

// TestDeobfuscateART: ART profile frames have descriptors; a renamed frame
// gets the original one and keeps the file's in ObfuscatedSignature; a
// mapped class's unlisted method keeps its name (class only).
func TestDeobfuscateART(t *testing.T) {
	p := &samples.Profile{
		Format:  samples.ARTProfileMethod,
		Threads: nil,
		Frames: []samples.Frame{
			{Name: "a.a.c", Class: "a.a", Method: "c", Signature: "()V"},
			{Name: "a.b.a", Class: "a.b", Method: "a", Signature: "(I)I"},
			{Name: "a.b.zz", Class: "a.b", Method: "zz", Signature: "()V"},
			{Name: "android.os.Looper.loop", Class: "android.os.Looper", Method: "loop", Signature: "()V"},
		},
		Samples: []samples.Sample{
			{Thread: -1, Stack: []int{0}, Count: 4},
			{Thread: -1, Stack: []int{1}, Count: 2},
			{Thread: -1, Stack: []int{2}, Count: 1},
			{Thread: -1, Stack: []int{3}, Count: 1},
		},
		Total:    8,
		MaxDepth: 1,
	}
	c := rename(p, readMap(t, p))
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	want := `com.ex.App.run "()V" :0 [a.a.c "()V" false]
com.ex.Util.helper "(I)I" :0 [a.b.a "(I)I" false]
com.ex.Util.zz "()V" :0 [a.b.zz "()V" false]
android.os.Looper.loop "()V" :0
`
	if got := frameLines(p); got != want {
		t.Errorf("frames:\n%swant:\n%s", got, want)
	}
	if want := (mapping.Counts{mapping.Untouched: 1, mapping.Mapped: 2, mapping.ClassOnly: 1}); c != want {
		t.Errorf("counts %v, want %v", c, want)
	}
}

// TestDeobfuscateUntouched: a map that names none of the classes leaves
// every profile of testdata/cases as it was.
func TestDeobfuscateUntouched(t *testing.T) {
	files, _ := filepath.Glob("../../samples/testdata/cases/*.txtar")
	if len(files) == 0 {
		t.Fatal("no samples/testdata/cases/*.txtar")
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		p, err := samples.Read(bytes.NewReader(section(t, ar, "input")))
		if err != nil {
			t.Fatal(err)
		}
		before := sampled.DumpProfile(p)
		c := rename(p, readMap(t, p))
		if got := sampled.DumpProfile(p); got != before {
			t.Errorf("%s: profile changed:\n%s\nwas:\n%s", file, got, before)
		}
		if c.Changed() != 0 || c[mapping.Untouched] == 0 {
			t.Errorf("%s: counts %v, want only untouched methods", file, c)
		}
	}
}

// TestMergeFrames: frames that became equal are merged into the first,
// stacks renumbered, the rest in order of first use; frames that differ
// in their obfuscated name alone stay apart.
func TestMergeFrames(t *testing.T) {
	x := samples.Frame{Name: "com.ex.App.main", Class: "com.ex.App", Method: "main", Obfuscated: "a.a.b"}
	y := samples.Frame{Name: "com.ex.App.main", Class: "com.ex.App", Method: "main", Obfuscated: "a.a.c"}
	z := samples.Frame{Name: "java.lang.Thread.run"}
	p := &samples.Profile{
		Frames:   []samples.Frame{z, x, y, x, z},
		Samples:  []samples.Sample{{Thread: -1, Stack: []int{0, 1}, Count: 1}, {Thread: -1, Stack: []int{4, 2, 3}, Count: 1}},
		MaxDepth: 3,
	}
	mergeFrames(p)
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range p.Frames {
		got = append(got, f.Name+"/"+f.Obfuscated)
	}
	if g := strings.Join(got, " "); g != "java.lang.Thread.run/ com.ex.App.main/a.a.b com.ex.App.main/a.a.c" {
		t.Errorf("frames %s", g)
	}
	if g := fmt.Sprint(p.Samples[0].Stack, p.Samples[1].Stack); g != "[0 1] [0 2 1]" {
		t.Errorf("stacks %s, want [0 1] [0 2 1]", g)
	}
}
