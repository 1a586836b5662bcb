package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"google.golang.org/protobuf/proto"

	"github.com/atrace2/atrace2/internal/tracegen"
	pb "github.com/atrace2/atrace2/proto"
)

// The deobfuscation round trip (issue 22, docs/formats.md §19): every
// command run on a minified build's trace with --mapping must print and
// write exactly what it does for the app's readable trace. Exactly these
// differences are allowed, each checked rather than ignored:
//
//   - pprof: Function.SystemName is the trace's own (obfuscated) name and
//     descriptor; samples whose leaf the map marks synthesized carry the
//     label synthesized=true, and a profile comment counts them;
//   - Perfetto: slices carry the obfuscated name (and the synthesized mark)
//     as debug annotations;
//   - speedscope: frames carry the obfuscated name as a detail;
//   - info: the input's size (the renamed key text is shorter) and the
//     deobfuscation counts;
//   - stderr: the deobfuscation counts after the repair summary.
//
// A ProGuard map cannot carry sourceFile metadata or residual signatures,
// so with it the expected outputs are those of the trace the ProGuard map
// restores (tracegen.Obfuscation.ProGuardRestored): the same trace
// without the sources that only metadata names, and residual-signature
// methods found by their name alone.

// deobfLayout is one way to write a trace: its files by the suffix added
// to the trace's name ("" for the name itself).
type deobfLayout struct {
	name, vm string
	write    func(*tracegen.Trace) map[string][]byte
	// every runs every command line; the other layouts run those marked
	// everyLayout, which show that the layout's method table reaches every
	// output (the commands past the frame table do not depend on the layout).
	every bool
}

// one is a layout of one file.
func one(write func(*tracegen.Trace) []byte) func(*tracegen.Trace) map[string][]byte {
	return func(t *tracegen.Trace) map[string][]byte { return map[string][]byte{"": write(t)} }
}

var deobfLayouts = []deobfLayout{
	{"art-regular", "art", one((*tracegen.Trace).Regular), true},
	{"dalvik-regular", "dalvik", one((*tracegen.Trace).Regular), true},
	{"dalvik-split", "dalvik", func(t *tracegen.Trace) map[string][]byte {
		key, data := t.Split() // NAME.key + NAME.data, given by the base name
		return map[string][]byte{".key": key, ".data": data}
	}, false},
	{"art-streaming", "art", one(func(t *tracegen.Trace) []byte { return t.Streaming(tracegen.StreamOptions{}) }), false},
	{"art-streaming-sec", "art", func(t *tracegen.Trace) map[string][]byte {
		// Android 6-7: no summary, the key in NAME.sec, found by name.
		return map[string][]byte{"": t.Streaming(tracegen.StreamOptions{NoSummary: true}), ".sec": t.Key()}
	}, false},
	{"art-v2", "art", one(func(t *tracegen.Trace) []byte { return t.V2(tracegen.V2Options{}) }), false},
	{"art-v2-streaming-ns", "art", one(func(t *tracegen.Trace) []byte {
		return t.V2(tracegen.V2Options{Layout: tracegen.V2d, Streaming: true})
	}), false},
	{"art-v2b-hybrid", "art", one(func(t *tracegen.Trace) []byte {
		return t.V2(tracegen.V2Options{Layout: tracegen.V2b, Hybrid: true})
	}), false},
	{"art-regular-gzip", "art", one(func(t *tracegen.Trace) []byte { return tracegen.Gzip(t.Regular()) }), false},
}

// deobfRun is one command line. Traces are app.trace (build 0), later.trace
// (build 0's map, build 1's times) and new.trace (build 1 and its map);
// files named out.* are outputs compared by their suffix.
type deobfRun struct {
	args    []string
	mapping func(build0, build1 string) []string // the mapping flags
	outputs []string
	// everyLayout runs in every layout, not only in those marked every.
	everyLayout bool
}

func oneMap(b0, _ string) []string   { return []string{"--mapping", b0} }
func twoMaps(b0, b1 string) []string { return []string{"--old-mapping", b0, "--new-mapping", b1} }

var deobfRuns = []deobfRun{
	{args: []string{"info", "app.trace"}},
	{args: []string{"info", "--format", "json", "app.trace"}, everyLayout: true},
	{args: []string{"dump", "app.trace"}},
	{args: []string{"pprof", "-o", "out.pb.gz", "app.trace"}, outputs: []string{"out.pb.gz"}},
	{args: []string{"pprof", "-o", "out.pb.gz", "app.trace", "later.trace"}, outputs: []string{"out.pb.gz"}},
	{args: []string{"perfetto", "-o", "out.perfetto-trace", "app.trace"}, outputs: []string{"out.perfetto-trace"}},
	{args: []string{"speedscope", "-o", "out.speedscope.json", "app.trace"}, outputs: []string{"out.speedscope.json"}},
	{args: []string{"speedscope", "--clock", "cpu", "app.trace"}},
	{args: []string{"folded", "app.trace"}},
	{args: []string{"folded", "--no-thread", "--clock", "cpu", "app.trace"}},
	{args: []string{"convert", "--pprof", "out.pb.gz", "--perfetto", "out.perfetto-trace",
		"--speedscope", "out.speedscope.json", "--folded", "out.folded", "app.trace"},
		outputs: []string{"out.pb.gz", "out.perfetto-trace", "out.speedscope.json", "out.folded"}, everyLayout: true},
	{args: []string{"top", "--wide", "app.trace"}},
	{args: []string{"top", "--per-thread", "--format", "csv", "app.trace"}},
	{args: []string{"top", "--format", "json", "app.trace"}},
	{args: []string{"calls", "--wide", "app.trace", `FeedAdapter\.(bind|load)`}},
	{args: []string{"calls", "--format", "json", "app.trace", `^com\.example\.feed\.(Formatter|Item|FeedAdapter\$)`}},
	{args: []string{"diff", "--wide", "app.trace", "later.trace"}},
	{args: []string{"diff", "--format", "json", "app.trace", "new.trace"}, mapping: twoMaps, everyLayout: true},
	{args: []string{"diff", "--format", "csv", "app.trace", "new.trace"}, mapping: twoMaps},
}

// deobfCase is a layout's files: the expected side (readable traces) and
// the minified side (obfuscated traces and their maps).
type deobfCase struct {
	want, got string // directories holding app.trace, later.trace, new.trace
	maps      [2]string
	// renamed maps each obfuscated "<class>.<method> <descriptor>" to the
	// expected frame's; synthesized lists the expected names the map marks.
	renamed     map[string]string
	synthesized map[string]bool
	// counts are the deobfuscation counts of every trace (hand-computed
	// for tracegen.MinifiedApp): of its 25 methods, 4 are framework
	// methods and 4 kept their names (onResume, onViewRecycled, the
	// lambda's run, FeedAdapter$1.run); with the ProGuard map, render is
	// found by its name alone.
	counts string
	hasID  bool // the maps have a pg_map_id (R8's)
}

// writeDeobfCase writes one layout's traces and maps under dir; proguard
// selects the ProGuard maps and their expectations.
func writeDeobfCase(t *testing.T, dir string, l deobfLayout, proguard bool) *deobfCase {
	t.Helper()
	c := &deobfCase{want: filepath.Join(dir, "want"), got: filepath.Join(dir, "got"),
		renamed: map[string]string{}, synthesized: map[string]bool{},
		counts: "17 methods mapped, 0 by name only, 0 ambiguous, 4 class only, 4 untouched"}
	c.hasID = !proguard
	if proguard {
		c.counts = "16 methods mapped, 1 by name only, 0 ambiguous, 4 class only, 4 untouched"
	}
	for _, d := range []string{c.want, c.got} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr0, plan0 := tracegen.MinifiedApp(l.vm, 0)
	tr1, plan1 := tracegen.MinifiedApp(l.vm, 1)
	for _, f := range []struct {
		name string
		tr   *tracegen.Trace
		plan *tracegen.Plan
	}{{"app.trace", tr0, plan0}, {"later.trace", tr1, plan0}, {"new.trace", tr1, plan1}} {
		ob, err := tracegen.Obfuscate(f.tr, f.plan)
		if err != nil {
			t.Fatal(err)
		}
		want := f.tr
		if proguard {
			want = ob.ProGuardRestored
		}
		for suffix, data := range l.write(want) {
			write(filepath.Join(c.want, f.name+suffix), data)
		}
		for suffix, data := range l.write(ob.Trace) {
			write(filepath.Join(c.got, f.name+suffix), data)
		}
		for i, m := range ob.Trace.Methods {
			w := want.Methods[i]
			c.renamed[m.Class+"."+m.Name+" "+m.Signature] = w.Class + "." + w.Name + " " + w.Signature
		}
		if !proguard {
			for _, name := range synthesizedNames(f.plan, f.tr) {
				c.synthesized[name] = true
			}
		}
	}
	for i, p := range []*tracegen.Plan{plan0, plan1} {
		c.maps[i] = filepath.Join(dir, fmt.Sprintf("mapping-%d.txt", i))
		if proguard {
			write(c.maps[i], p.ProGuard())
		} else {
			write(c.maps[i], p.R8())
		}
	}
	return c
}

// synthesizedNames are the <class>.<method> names of tr that an R8 map
// of p marks as made by the compiler: the methods of a marked class and the
// marked methods.
func synthesizedNames(p *tracegen.Plan, tr *tracegen.Trace) []string {
	var names []string
	for _, c := range p.Classes {
		for _, m := range tr.Methods {
			if c.Synthesized && m.Class == c.Orig {
				names = append(names, m.Class+"."+m.Name)
			}
		}
		for _, m := range c.Methods {
			if m.Synthesized {
				owner := m.Owner
				if owner == "" {
					owner = c.Orig
				}
				names = append(names, owner+"."+m.Name)
			}
		}
	}
	return names
}

// requireMapping fails the test at once, with the reason, when the binary
// has no --mapping flag: these tests need the branches of issue 22 (map,
// core, outputs) merged.
func requireMapping(t *testing.T) {
	t.Helper()
	if r := runIn(t, os.TempDir(), "--help"); !strings.Contains(r.stdout, "--mapping") {
		t.Fatal("atrace2 has no --mapping flag: the deobfuscation tests need issue 22's mapping, core and outputs branches merged")
	}
}

// runIn runs the binary in dir, so that both sides name their traces
// alike.
func runIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return atrace2In(t, dir, nil, args...)
}

// TestDeobfuscationRoundTrip runs every command on the readable traces and
// on the minified ones with their R8 map, then with their ProGuard map, in
// two layouts, and in every other layout the commands that show its method
// table reaches every output (info, convert to all four, diff), and
// compares all outputs.
func TestDeobfuscationRoundTrip(t *testing.T) {
	requireMapping(t)
	for _, l := range deobfLayouts {
		for _, flavour := range []string{"r8", "proguard"} {
			t.Run(l.name+"/"+flavour, func(t *testing.T) {
				t.Parallel()
				c := writeDeobfCase(t, t.TempDir(), l, flavour == "proguard")
				for _, r := range deobfRuns {
					if l.every || r.everyLayout {
						c.check(t, r)
					}
				}
			})
		}
	}
}

// check runs one command on both sides and compares everything.
func (c *deobfCase) check(t *testing.T, r deobfRun) {
	t.Helper()
	name := strings.Join(r.args, " ")
	mapFlags := oneMap
	if r.mapping != nil {
		mapFlags = r.mapping
	}
	want := runIn(t, c.want, r.args...)
	gotArgs := append(slices.Clone(r.args[:1]), mapFlags(c.maps[0], c.maps[1])...)
	got := runIn(t, c.got, append(gotArgs, r.args[1:]...)...)
	if want.code != 0 || got.code != 0 {
		t.Errorf("%s: exit %d readable, %d minified; stderr:\n%s\n%s", name, want.code, got.code, want.stderr, got.stderr)
		return
	}
	if ws, gs := want.stderr, c.withoutDeobfCounts(t, name, got.stderr); ws != gs {
		t.Errorf("%s: stderr\n%s\nwant\n%s", name, gs, ws)
	}
	switch r.args[0] {
	case "info":
		c.compareInfo(t, name, want.stdout, got.stdout)
	case "speedscope":
		if len(r.outputs) == 0 {
			c.compareSpeedscope(t, name, []byte(want.stdout), []byte(got.stdout))
		}
	default:
		if want.stdout != got.stdout {
			t.Errorf("%s: stdout differs:\n%s", name, lineDiff(want.stdout, got.stdout))
		}
	}
	for _, out := range r.outputs {
		wb, err1 := os.ReadFile(filepath.Join(c.want, out))
		gb, err2 := os.ReadFile(filepath.Join(c.got, out))
		if err1 != nil || err2 != nil {
			t.Errorf("%s: %v, %v", name, err1, err2)
			continue
		}
		switch {
		case strings.HasSuffix(out, ".pb.gz"):
			c.comparePprof(t, name, wb, gb)
		case strings.HasSuffix(out, ".perfetto-trace"):
			c.comparePerfetto(t, name, wb, gb)
		case strings.HasSuffix(out, ".speedscope.json"):
			c.compareSpeedscope(t, name, wb, gb)
		default:
			if !bytes.Equal(wb, gb) {
				t.Errorf("%s: %s differs:\n%s", name, out, lineDiff(string(wb), string(gb)))
			}
		}
	}
}

// deobfCountsRE matches what a mapping adds to stderr: one line per
// trace with the map and the deobfuscation counts.
var deobfCountsRE = regexp.MustCompile(`(?m)^atrace2: [^:\n]*: deobfuscated with [^ \n]+( \(map id [0-9a-f]+\))?: ([^\n]*)\n`)

// withoutDeobfCounts checks the counts lines of stderr, one per trace,
// and returns the rest.
func (c *deobfCase) withoutDeobfCounts(t *testing.T, name, stderr string) string {
	t.Helper()
	m := deobfCountsRE.FindAllStringSubmatch(stderr, -1)
	for _, l := range m {
		if l[2] != c.counts || (l[1] != "") != c.hasID {
			t.Errorf("%s: counts %q (map id %q), want %q", name, l[2], l[1], c.counts)
		}
	}
	if len(m) == 0 {
		t.Errorf("%s: no counts on stderr:\n%s", name, stderr)
	}
	return deobfCountsRE.ReplaceAllString(stderr, "")
}

var (
	// infoSizeRE matches the input size in info's text and JSON forms.
	infoSizeRE = regexp.MustCompile(`\(([0-9,]+) bytes of input\)|"bytes": [0-9]+`)
	// infoDeobfRE matches the deobfuscation lines of info's text and the
	// deobfuscation object of its JSON.
	infoDeobfRE = regexp.MustCompile(`(?m)^mapping  .*\n|(?s)\n  "deobfuscation": \{.*?\n  \},`)
)

func (c *deobfCase) compareInfo(t *testing.T, name, want, got string) {
	t.Helper()
	norm := func(s string) string { return infoSizeRE.ReplaceAllString(s, "SIZE") }
	if !infoDeobfRE.MatchString(got) {
		t.Errorf("%s: no deobfuscation counts in\n%s", name, got)
	}
	if w, g := norm(want), norm(infoDeobfRE.ReplaceAllString(got, "")); w != g {
		t.Errorf("%s: differs:\n%s", name, lineDiff(w, g))
	}
}

// comparePprof compares the profiles after checking and undoing the
// allowed differences: SystemName, the synthesized label and its comment.
func (c *deobfCase) comparePprof(t *testing.T, name string, wantData, gotData []byte) {
	t.Helper()
	want, err1 := profile.ParseData(wantData)
	got, err2 := profile.ParseData(gotData)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: %v, %v", name, err1, err2)
	}
	for _, f := range got.Function {
		orig, ok := c.renamed[f.SystemName]
		if !ok {
			t.Errorf("%s: function %s has system name %q, not a method of the minified trace", name, f.Name, f.SystemName)
			continue
		}
		f.SystemName = orig
	}
	for _, s := range got.Sample {
		leaf := s.Location[0].Line[0].Function.Name
		if v := s.Label["synthesized"]; c.synthesized[leaf] != (len(v) == 1 && v[0] == "true") {
			t.Errorf("%s: sample with leaf %s has synthesized=%v", name, leaf, v)
		}
		delete(s.Label, "synthesized")
		if len(s.Label) == 0 {
			s.Label = nil
		}
	}
	got.Comments = slices.DeleteFunc(got.Comments, func(s string) bool { return strings.Contains(s, "synthesized=true") })
	var wb, gb bytes.Buffer
	if err := want.WriteUncompressed(&wb); err != nil {
		t.Fatal(err)
	}
	if err := got.WriteUncompressed(&gb); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(wb.Bytes(), gb.Bytes()) {
		t.Errorf("%s: profiles differ:\n%s", name, lineDiff(want.String(), got.String()))
	}
}

// perfettoDeobfArgs are the debug annotations a mapping adds to slices.
var perfettoDeobfArgs = map[string]bool{"obfuscated": true, "synthesized": true}

// comparePerfetto compares the decoded traces after checking and removing
// the obfuscated and synthesized annotations, and their interned names and
// values.
func (c *deobfCase) comparePerfetto(t *testing.T, name string, wantData, gotData []byte) {
	t.Helper()
	var want, got pb.Trace
	if err := proto.Unmarshal(wantData, &want); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := proto.Unmarshal(gotData, &got); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	names := map[uint64]string{}    // annotation name iid → name
	strs := map[uint64]string{}     // string value iid → value
	events := map[uint64]string{}   // event name iid → name
	removedStrs := map[uint64]int{} // string value iids of removed annotations
	keptStrs := map[uint64]bool{}
	marked := map[string]bool{} // slices marked synthesized
	for _, p := range got.Packet {
		if d := p.GetInternedData(); d != nil {
			for _, n := range d.DebugAnnotationNames {
				names[n.GetIid()] = n.GetName()
			}
			for _, s := range d.DebugAnnotationStringValues {
				strs[s.GetIid()] = string(s.GetStr())
			}
			for _, e := range d.EventNames {
				events[e.GetIid()] = e.GetName()
			}
		}
		ev := p.GetTrackEvent()
		if ev == nil {
			continue
		}
		ev.DebugAnnotations = slices.DeleteFunc(ev.DebugAnnotations, func(a *pb.DebugAnnotation) bool {
			n := a.GetName()
			if a.GetNameIid() != 0 {
				n = names[a.GetNameIid()]
			}
			if !perfettoDeobfArgs[n] {
				if a.GetStringValueIid() != 0 {
					keptStrs[a.GetStringValueIid()] = true
				}
				return false
			}
			v := a.GetStringValue()
			if a.GetStringValueIid() != 0 {
				v = strs[a.GetStringValueIid()]
				removedStrs[a.GetStringValueIid()]++
			}
			slice := ev.GetName()
			if ev.GetNameIid() != 0 {
				slice = events[ev.GetNameIid()]
			}
			if n == "obfuscated" && !c.isObfuscatedName(slice, v) {
				t.Errorf("%s: slice %s has obfuscated=%q", name, slice, v)
			}
			if n == "synthesized" {
				if !c.synthesized[slice] {
					t.Errorf("%s: slice %s is marked synthesized", name, slice)
				}
				marked[slice] = true
			}
			return true
		})
		if len(ev.DebugAnnotations) == 0 {
			ev.DebugAnnotations = nil
		}
	}
	for _, slice := range events {
		if c.synthesized[slice] && !marked[slice] {
			t.Errorf("%s: slice %s is not marked synthesized", name, slice)
		}
	}
	for _, p := range got.Packet {
		d := p.GetInternedData()
		if d == nil {
			continue
		}
		d.DebugAnnotationNames = slices.DeleteFunc(d.DebugAnnotationNames, func(n *pb.DebugAnnotationName) bool {
			return perfettoDeobfArgs[n.GetName()] && !staticAnnotation(&want, n.GetName())
		})
		d.DebugAnnotationStringValues = slices.DeleteFunc(d.DebugAnnotationStringValues, func(s *pb.InternedString) bool {
			return removedStrs[s.GetIid()] > 0 && !keptStrs[s.GetIid()]
		})
	}
	if !proto.Equal(&want, &got) {
		t.Errorf("%s: Perfetto traces differ:\n%s", name, lineDiff(perfettoText(&want), perfettoText(&got)))
	}
}

// staticAnnotation reports whether the readable side's trace interns the
// annotation name too (a name every sequence starts with).
func staticAnnotation(tr *pb.Trace, name string) bool {
	for _, p := range tr.Packet {
		for _, n := range p.GetInternedData().GetDebugAnnotationNames() {
			if n.GetName() == name {
				return true
			}
		}
	}
	return false
}

// isObfuscatedName reports whether v is the minified name (with or without
// its descriptor) of a method named name on the expected side.
func (c *deobfCase) isObfuscatedName(name, v string) bool {
	for obf, orig := range c.renamed {
		origName, _, _ := strings.Cut(orig, " ")
		obfName, _, _ := strings.Cut(obf, " ")
		if origName == name && (v == obf || v == obfName) {
			return true
		}
	}
	return false
}

func perfettoText(tr *pb.Trace) string {
	var b strings.Builder
	for _, p := range tr.Packet {
		b.WriteString(strings.ReplaceAll(p.String(), "  ", " ") + "\n")
	}
	return b.String()
}

// speedscopeDeobfKeys are the frame keys a mapping adds.
var speedscopeDeobfKeys = []string{"obfuscated"}

// compareSpeedscope compares the decoded files after checking and removing
// the frames' obfuscated detail.
func (c *deobfCase) compareSpeedscope(t *testing.T, name string, wantData, gotData []byte) {
	t.Helper()
	var want, got map[string]any
	if err := json.Unmarshal(wantData, &want); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(gotData, &got); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	frames, _ := got["shared"].(map[string]any)["frames"].([]any)
	for _, f := range frames {
		fr := f.(map[string]any)
		for _, k := range speedscopeDeobfKeys {
			if v, ok := fr[k]; ok {
				if s, _ := v.(string); !c.isObfuscatedName(fr["name"].(string), s) {
					t.Errorf("%s: frame %v has %s=%v", name, fr["name"], k, v)
				}
				delete(fr, k)
			}
		}
	}
	if !reflect.DeepEqual(want, got) {
		wj, _ := json.MarshalIndent(want, "", " ")
		gj, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("%s: speedscope files differ:\n%s", name, lineDiff(string(wj), string(gj)))
	}
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(wl), len(gl)) && shown < 12; i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, w, g)
			shown++
		}
	}
	return b.String()
}

// TestDeobfuscationNeeded: without --mapping the minified trace's outputs
// differ from the readable trace's (so the round trip can fail), and
// atrace2 says once that the trace looks obfuscated, naming the flag.
func TestDeobfuscationNeeded(t *testing.T) {
	requireMapping(t)
	c := writeDeobfCase(t, t.TempDir(), deobfLayouts[0], false)
	want := runIn(t, c.want, "folded", "app.trace")
	got := runIn(t, c.got, "folded", "app.trace")
	if want.code != 0 || got.code != 0 || want.stdout == got.stdout {
		t.Errorf("folded without --mapping: exit %d, %d, same output %v", want.code, got.code, want.stdout == got.stdout)
	}
	if !strings.Contains(got.stdout, "a.b.c.a") || strings.Contains(got.stdout, "FeedAdapter") {
		t.Errorf("folded without --mapping is not the minified names:\n%s", got.stdout)
	}
	if strings.Count(got.stderr, "--mapping") != 1 || strings.Contains(want.stderr, "--mapping") {
		t.Errorf("the hint: minified stderr %q, readable stderr %q", got.stderr, want.stderr)
	}
}
