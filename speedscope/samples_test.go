package speedscope

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/samples/samplegen"
	"github.com/atrace2/atrace2/stream"
)

// sampledFile is a speedscope file of sampled profiles; decoding
// disallows unknown fields.
type sampledFile struct {
	Schema             string `json:"$schema"`
	Exporter           string `json:"exporter"`
	Name               string `json:"name"`
	ActiveProfileIndex int    `json:"activeProfileIndex"`
	Shared             struct {
		Frames []struct {
			Name string `json:"name"`
			File string `json:"file,omitempty"`
			Line *int   `json:"line,omitempty"`
			// Obfuscated is atrace2's: the trace's name of a renamed frame.
			Obfuscated string `json:"obfuscated,omitempty"`
		} `json:"frames"`
	} `json:"shared"`
	Profiles []struct {
		Type       string    `json:"type"`
		Name       string    `json:"name"`
		Unit       string    `json:"unit"`
		StartValue float64   `json:"startValue"`
		EndValue   float64   `json:"endValue"`
		Samples    [][]int   `json:"samples"`
		Weights    []float64 `json:"weights"`
	} `json:"profiles"`
}

// writeSampled converts generated profile text and decodes the file,
// checking what speedscope's importer and schema require of sampled
// profiles (docs/outputs.md §3.1, §3.2).
func writeSampled(t *testing.T, name string, text []byte, opt Options) ([]byte, *sampledFile) {
	t.Helper()
	p, err := samples.Read(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Tree(name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTree(&buf, s, opt); err != nil {
		t.Fatal(err)
	}
	var f sampledFile
	d := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		t.Fatalf("decoding: %v\n%s", err, buf.Bytes())
	}
	if f.Schema != Schema || f.ActiveProfileIndex < 0 || f.ActiveProfileIndex >= len(f.Profiles) {
		t.Errorf("$schema %q, activeProfileIndex %d of %d profiles", f.Schema, f.ActiveProfileIndex, len(f.Profiles))
	}
	for _, pr := range f.Profiles {
		var sum float64
		for _, w := range pr.Weights {
			sum += w
		}
		if pr.Type != "sampled" || len(pr.Samples) != len(pr.Weights) || pr.StartValue != 0 || pr.EndValue != sum ||
			(pr.Unit != "none" && pr.Unit != "nanoseconds") {
			t.Errorf("profile %q: type %s unit %s, %d samples, %d weights, start %v end %v (sum %v)",
				pr.Name, pr.Type, pr.Unit, len(pr.Samples), len(pr.Weights), pr.StartValue, pr.EndValue, sum)
		}
		for _, st := range pr.Samples {
			if slices.ContainsFunc(st, func(i int) bool { return i < 0 || i >= len(f.Shared.Frames) }) {
				t.Errorf("profile %q: stack %v has a frame index out of range", pr.Name, st)
			}
		}
	}
	return buf.Bytes(), &f
}

// stackNames renders a profile's samples as "A;B=weight".
func stackNames(f *sampledFile, i int) string {
	var out []string
	pr := f.Profiles[i]
	for j, st := range pr.Samples {
		var names []string
		for _, k := range st {
			names = append(names, f.Shared.Frames[k].Name)
		}
		out = append(out, strings.Join(names, ";")+"="+strconv.FormatFloat(pr.Weights[j], 'f', -1, 64))
	}
	return strings.Join(out, "\n")
}

// TestSampledDalvik checks every field by hand: frames are de-duplicated
// by name and file (App.parse ran at three lines and is one frame), stacks
// come depth first with callees by name.
func TestSampledDalvik(t *testing.T) {
	data, f := writeSampled(t, "app.hprof", samplegen.Fixture().Dalvik(), Options{Exporter: "atrace2@test"})
	if f.Name != "app.hprof (samples)" || f.Exporter != "atrace2@test" || f.ActiveProfileIndex != 0 {
		t.Errorf("name %q exporter %q active %d", f.Name, f.Exporter, f.ActiveProfileIndex)
	}
	var frames []string
	for _, fr := range f.Shared.Frames {
		if fr.Line != nil {
			t.Errorf("frame %s has a line", fr.Name)
		}
		frames = append(frames, fr.Name+" "+fr.File)
	}
	wantFrames := []string{"com.example.App.main com/example/App.java", "com.example.App.parse com/example/App.java",
		"java.lang.Long.parseLong java/lang/Long.java", "com.example.Worker.run com/example/Worker.java"}
	if !slices.Equal(frames, wantFrames) {
		t.Errorf("frames %q, want %q", frames, wantFrames)
	}
	if len(f.Profiles) != 2 || f.Profiles[0].Name != "main (thread 1)" || f.Profiles[1].Name != "worker (thread 2)" ||
		f.Profiles[0].Unit != "none" || f.Profiles[0].EndValue != 10 || f.Profiles[1].EndValue != 3 {
		t.Fatalf("profiles: %s", data)
	}
	// App.parse at line 20 (node created first) before line 21; under it,
	// App.parse before java.lang.Long.parseLong.
	want := `com.example.App.main;com.example.App.parse;com.example.App.parse=2
com.example.App.main;com.example.App.parse;java.lang.Long.parseLong=5
com.example.App.main;com.example.App.parse=3`
	if got := stackNames(f, 0); got != want {
		t.Errorf("main:\n%s\nwant:\n%s", got, want)
	}
	want = "com.example.Worker.run=2\ncom.example.Worker.run;com.example.App.parse=1"
	if got := stackNames(f, 1); got != want {
		t.Errorf("worker:\n%s\nwant:\n%s", got, want)
	}
	sampledGolden(t, "sampled-dalvik.speedscope.json", data)
}

// TestSampledTimes: cpu=times weighs stacks by elapsed nanoseconds.
func TestSampledTimes(t *testing.T) {
	_, f := writeSampled(t, "-", samplegen.Fixture().JVM(samplegen.JVMOptions{Times: true}), Options{})
	if f.Name != "stdin (elapsed time)" || f.Profiles[0].Unit != "nanoseconds" || f.Profiles[0].EndValue != 75e6 {
		t.Errorf("name %q unit %q end %v", f.Name, f.Profiles[0].Unit, f.Profiles[0].EndValue)
	}
	want := "com.example.Worker.run=20000000\ncom.example.Worker.run;com.example.App.parse=5000000"
	if got := stackNames(f, 1); got != want {
		t.Errorf("worker:\n%s\nwant:\n%s", got, want)
	}
}

// TestSampledActive: without a main thread the heaviest profile shows
// first; stacks without a thread are one profile.
func TestSampledActive(t *testing.T) {
	a := samplegen.Frame{Class: "A", Method: "a", File: "A.java", Line: 1}
	h := &samplegen.Hprof{Date: "d", Threads: []samplegen.Thread{{ID: 1, Name: "t1"}, {ID: 2, Name: "t2"}}, Traces: []samplegen.Trace{
		{ID: 1, Thread: 1, Count: 2, Frames: []samplegen.Frame{a}},
		{ID: 2, Thread: 2, Count: 5, Frames: []samplegen.Frame{a}},
		{ID: 3, Count: 1},
	}}
	_, f := writeSampled(t, "x", h.JVM(samplegen.JVMOptions{}), Options{Name: "named"})
	var names []string
	for _, p := range f.Profiles {
		names = append(names, p.Name)
	}
	if f.Name != "named" || f.ActiveProfileIndex != 1 || !slices.Equal(names, []string{"t1 (thread 1)", "t2 (thread 2)", "(thread not recorded)"}) {
		t.Errorf("name %q active %d profiles %q", f.Name, f.ActiveProfileIndex, names)
	}
	if got := stackNames(f, 2); got != "(no Java frames)=1" {
		t.Errorf("the empty stack: %q", got)
	}
}

// sampledGolden compares data with testdata/golden/speedscope/name, or
// rewrites it with -update.
func sampledGolden(t *testing.T, name string, data []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", "speedscope", name), data)
}

// TestSampledZeroWeight: a thread whose stacks took no measurable CPU time
// has no profile, but a file keeps one profile at least.
func TestSampledZeroWeight(t *testing.T) {
	a := samplegen.Frame{Class: "A", Method: "a", File: "A.java", Line: 1}
	h := &samplegen.Hprof{Date: "d", Threads: []samplegen.Thread{{ID: 1, Name: "t1"}, {ID: 2, Name: "t2"}}, Traces: []samplegen.Trace{
		{ID: 1, Thread: 1, Count: 2, TimeMs: 0, Frames: []samplegen.Frame{a}},
		{ID: 2, Thread: 2, Count: 5, TimeMs: 100, Frames: []samplegen.Frame{a}},
	}}
	_, f := writeSampled(t, "x", h.JVM(samplegen.JVMOptions{Times: true}), Options{})
	if len(f.Profiles) != 1 || f.Profiles[0].Name != "t2 (thread 2)" || f.ActiveProfileIndex != 0 {
		t.Errorf("profiles %+v", f.Profiles)
	}
	h.Traces = h.Traces[:1]
	_, f = writeSampled(t, "x", h.JVM(samplegen.JVMOptions{Times: true}), Options{})
	if len(f.Profiles) != 1 || f.Profiles[0].Name != "t1 (thread 1)" || len(f.Profiles[0].Samples) != 0 {
		t.Errorf("all weights 0: profiles %+v", f.Profiles)
	}
}

// TestSampledValue: the value a tree's file shows is its weights; a clock
// the tree lacks is refused (counts have none), and so is off-CPU time,
// which no speedscope file shows (Refuse), before anything is written.
func TestSampledValue(t *testing.T) {
	fx := samplegen.Fixture()
	_, f := writeSampled(t, "-", fx.JVM(samplegen.JVMOptions{Times: true}), Options{Value: stream.ValueWall})
	if f.Profiles[0].Unit != "nanoseconds" {
		t.Errorf("cpu=times with the wall value: unit %q", f.Profiles[0].Unit)
	}
	for _, c := range []struct {
		text []byte
		v    stream.Value
		want string
	}{
		{fx.JVM(samplegen.JVMOptions{}), stream.ValueWall, "speedscope: the trace has no wall clock"},
		{fx.JVM(samplegen.JVMOptions{Times: true}), stream.ValueCPU, "speedscope: the trace has no thread-CPU clock"},
		{fx.JVM(samplegen.JVMOptions{Times: true}), stream.ValueOffCPU, "speedscope cannot show offcpu time: its timeline is on one clock"},
	} {
		p, err := samples.Read(bytes.NewReader(c.text))
		if err != nil {
			t.Fatal(err)
		}
		tree, err := p.Tree("x")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		err = WriteTree(&buf, tree, Options{Value: c.v})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || buf.Len() != 0 {
			t.Errorf("%v: %v, %d bytes; want %q", c.v, err, buf.Len(), c.want)
		}
	}
	for v, want := range map[stream.Value]bool{stream.ValueAuto: false, stream.ValueWall: false, stream.ValueCPU: false, stream.ValueOffCPU: true} {
		if err := Refuse(v); (err != nil) != want {
			t.Errorf("Refuse(%v) = %v", v, err)
		}
	}
}
