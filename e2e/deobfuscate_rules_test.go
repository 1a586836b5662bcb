package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// The resolution rules of issue 22 (docs/formats.md §19), one case or more
// per rule, through the binary: a tiny minified trace and a hand-written
// map, with hand-computed output. In every trace android.os.Looper.loop
// (not in any map) calls the listed methods one after the other, the k-th
// (from 0) for 10·(k+1) µs, and spends 1 µs itself.

const loop = "android.os.Looper.loop"

// ruleMethod is a trace method line: class, name, descriptor, source.
type ruleMethod struct{ class, name, sig, source string }

// ruleTrace writes the trace of methods into dir as app.trace.
func ruleTrace(t *testing.T, dir, vm string, methods []ruleMethod) {
	t.Helper()
	b := tracegen.NewBuilder(tracegen.Trace{Version: 3, Clock: "dual", VM: vm, Start: 1_370_000_000_000_000})
	root := b.Method("android.os.Looper", "loop", "()V", "Looper.java")
	ids := make([]uint32, len(methods))
	for i, m := range methods {
		ids[i] = b.Method(m.class, m.name, m.sig, m.source)
	}
	main := b.Thread(1, "main")
	main.Call(root, 1, 1, func() {
		for i, id := range ids {
			us := uint32(10 * (i + 1))
			main.Call(id, us, us, nil)
		}
	})
	if err := os.WriteFile(filepath.Join(dir, "app.trace"), b.Trace().Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeMap writes a map file, gzip-compressed when its name ends in .gz.
func writeMap(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data := []byte(text)
	if strings.HasSuffix(path, ".gz") {
		data = tracegen.Gzip(data)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// folded is the expected output of folded --no-thread: the loop's line and
// one line per name under it, sorted as folded sorts them.
func folded(names ...string) string {
	lines := []string{loop + " 1"}
	for _, n := range names {
		lines = append(lines, loop+";"+n)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

const rewriteFrame = `    # {"id":"com.android.tools.r8.rewriteFrame","conditions":["throws(Ljava/lang/NullPointerException;)"],"actions":["removeInnerFrames(1)"]}`

var ruleCases = []struct {
	name    string
	mapText string
	methods []ruleMethod
	want    string // folded --no-thread with --mapping
}{
	{
		name: "1 class: renamed, OUTER$suffix (the longest mapped OUTER), not mapped",
		mapText: `com.example.Feed -> a.b:
    void bind(int) -> a
com.example.Feed$Inner -> a.b$c:
`,
		methods: []ruleMethod{
			{"a.b", "a", "(I)V", "SourceFile"},
			{"a.b$1", "run", "()V", "SourceFile"},
			{"a.c", "run", "()V", "SourceFile"},
			{"a.bx", "run", "()V", "SourceFile"},
			{"a.b$c$1", "run", "()V", "SourceFile"},
		},
		want: folded("com.example.Feed.bind 10", "com.example.Feed$1.run 20", "a.c.run 30", "a.bx.run 40",
			"com.example.Feed$Inner$1.run 50"),
	},
	{
		name: "2 inline chains: only the outermost line is a candidate; lines without a range stand alone",
		mapText: `com.example.Feed -> a.b:
    1:5:void com.example.Log.d(int):40:44 -> a
` + rewriteFrame + `
    1:5:void bind(int):27 -> a
    6:8:void com.example.Log.e(long):50:52 -> b
    6:8:void com.example.Log.w(long):60 -> b
    6:8:void show(long):30 -> b
    void x(int) -> d
    void y(long) -> d
`,
		methods: []ruleMethod{
			{"a.b", "a", "(I)V", "SourceFile"},
			{"a.b", "b", "(J)V", "SourceFile"},
			{"a.b", "d", "(I)V", "SourceFile"},
			{"a.b", "d", "(J)V", "SourceFile"},
		},
		want: folded("com.example.Feed.bind 10", "com.example.Feed.show 20", "com.example.Feed.x 30", "com.example.Feed.y 40"),
	},
	{
		name: "3 residual signature: metadata for every line of the method, else computed",
		mapText: `# {"id":"com.android.tools.r8.mapping","version":"2.2"}
com.example.Feed -> a.b:
    1:3:void draw(com.example.Item,int):10:12 -> e
      # {"id":"com.android.tools.r8.residualsignature","signature":"(La/c;)V"}
    4:6:void draw(com.example.Item,int):20:22 -> e
    7:9:void paint(int):30:32 -> e
    10:12:void show(com.example.Item):40:42 -> f
com.example.Item -> a.c:
`,
		methods: []ruleMethod{
			{"a.b", "e", "(La/c;)V", "SourceFile"},
			{"a.b", "e", "(I)V", "SourceFile"},
			{"a.b", "e", "(La/c;I)V", "SourceFile"}, // no residual matches: by name
			{"a.b", "f", "(La/c;)V", "SourceFile"},
		},
		want: folded("com.example.Feed.draw 10", "com.example.Feed.paint 20",
			"com.example.Feed.draw | com.example.Feed.paint 30", "com.example.Feed.show 40"),
	},
	{
		name: "4 overloads, merged classes, name-only fallback",
		mapText: `com.example.Feed -> a.b:
    void load(int) -> a
    void fetch(java.lang.String) -> a
    void only(int) -> b
com.example.AB -> a.d:
    void com.example.B.baz() -> a
    void com.example.A.baz() -> a
`,
		methods: []ruleMethod{
			{"a.b", "a", "(I)V", "SourceFile"},
			{"a.b", "a", "(Ljava/lang/String;)V", "SourceFile"},
			{"a.b", "a", "(J)V", "SourceFile"},
			{"a.b", "b", "(J)V", "SourceFile"},
			{"a.d", "a", "()V", "SourceFile"},
		},
		want: folded("com.example.Feed.load 10", "com.example.Feed.fetch 20", "com.example.Feed.fetch | com.example.Feed.load 30",
			"com.example.Feed.only 40", "com.example.A.baz | com.example.B.baz 50"),
	},
	{
		name:    "5 owner: a moved method is named by its original owner",
		mapText: rule5Map,
		methods: rule5Methods,
		want: folded("com.example.Other.helper 10", "com.example.Feed.bind 20", "com.example.Kept.run 30",
			"com.example.Kept2.run 40", "com.example.Kept3.run 50", "com.example.Kept4.run 60",
			"com.example.Feed.onClick 70", "com.example.Feed$1.accept 80"),
	},
	{
		name:    "6 kept names, constructors, synthesized",
		mapText: rule6Map,
		methods: rule6Methods,
		want: folded("com.example.Feed.onClick 10", "com.example.Feed.<init> 20", "com.example.Feed.<clinit> 30",
			"com.example.Feed$$ExternalSyntheticLambda0.run 40", "com.example.Feed$$ExternalSyntheticLambda0.<init> 50",
			"com.example.Gen.make 60"),
	},
}

const rule5Map = `# {"id":"com.android.tools.r8.mapping","version":"2.2"}
# pg_map_id: 5b46fdc
com.example.Feed -> a.b:
# {"id":"sourceFile","fileName":"Feed.kt"}
    void com.example.Other.helper(com.example.Item) -> c
    void bind(com.example.Item,int) -> a
com.example.Other -> a.e:
# {"id":"sourceFile","fileName":"Other.kt"}
com.example.Item -> a.c:
com.example.Kept -> a.f:
    void run() -> a
com.example.Kept2 -> a.g:
    void run() -> a
com.example.Kept3 -> a.h:
    void run() -> a
com.example.Kept4 -> a.i:
    void run() -> a
`

var rule5Methods = []ruleMethod{
	{"a.b", "c", "(La/c;)V", "r8-map-id-5b46fdc"},
	{"a.b", "a", "(La/c;I)V", "r8-map-id-5b46fdc"},
	{"a.f", "a", "()V", "Kept.java"},
	{"a.g", "a", "()V", "SourceFile"},
	{"a.h", "a", "()V", "Unknown Source"},
	{"a.i", "a", "()V", "r8-map-id-5b46fdc"},
	{"a.b", "onClick", "(La/c;)V", "r8-map-id-5b46fdc"},  // class only: types named back
	{"a.b$1", "accept", "(La/c;)V", "r8-map-id-5b46fdc"}, // OUTER$suffix: OUTER's source file
}

const rule6Map = `com.example.Feed -> a.b:
    void bind(int) -> a
com.example.Feed$$ExternalSyntheticLambda0 -> a.c:
# {"id":"com.android.tools.r8.synthesized"}
    void run() -> a
    void <init>(com.example.Feed) -> <init>
com.example.Gen -> a.d:
    void make() -> a
      # {"id":"com.android.tools.r8.synthesized"}
`

var rule6Methods = []ruleMethod{
	{"a.b", "onClick", "()V", "SourceFile"},
	{"a.b", "<init>", "()V", "SourceFile"},
	{"a.b", "<clinit>", "()V", "SourceFile"},
	{"a.c", "a", "()V", "SourceFile"},
	{"a.c", "<init>", "(La/b;)V", "SourceFile"},
	{"a.d", "a", "()V", "SourceFile"},
}

// TestDeobfuscationRules: rules 1-6, in ART and Dalvik method lines, the
// map plain and gzip-compressed.
func TestDeobfuscationRules(t *testing.T) {
	requireMapping(t)
	for _, tc := range ruleCases {
		for _, vm := range []string{"art", "dalvik"} {
			dir := t.TempDir()
			ruleTrace(t, dir, vm, tc.methods)
			mapFile := "mapping.txt"
			if vm == "dalvik" {
				mapFile = "mapping.txt.gz"
			}
			writeMap(t, filepath.Join(dir, mapFile), tc.mapText)
			r := runIn(t, dir, "folded", "--no-thread", "--mapping", mapFile, "app.trace")
			if r.code != 0 || r.stdout != tc.want {
				t.Errorf("rule %s (%s): exit %d, stderr %q, folded\n%s\nwant\n%s", tc.name, vm, r.code, r.stderr, r.stdout, tc.want)
			}
		}
	}
}

// TestDeobfuscationRule5: the original descriptor with original types, and
// the source file: the owner's sourceFile metadata, else the trace's own
// unless it is SourceFile, Unknown Source or r8-map-id-…. A method the
// map does not list has its descriptor's types named back, and an
// OUTER$suffix class has OUTER's source file (docs/formats.md §19.5).
func TestDeobfuscationRule5(t *testing.T) {
	requireMapping(t)
	dir := t.TempDir()
	ruleTrace(t, dir, "art", rule5Methods)
	writeMap(t, filepath.Join(dir, "mapping.txt"), rule5Map)
	r := runIn(t, dir, "speedscope", "-q", "--mapping", "mapping.txt", "app.trace")
	var f struct {
		Shared struct {
			Frames []struct{ Name, File string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &f); r.code != 0 || err != nil {
		t.Fatalf("speedscope: exit %d, %v, stderr %q", r.code, err, r.stderr)
	}
	var got []string
	for _, fr := range f.Shared.Frames {
		got = append(got, fr.Name+" "+fr.File)
	}
	want := []string{
		loop + " android/os/Looper.java",
		"com.example.Other.helper com/example/Other.kt",
		"com.example.Feed.bind com/example/Feed.kt",
		"com.example.Kept.run com/example/Kept.java",
		"com.example.Kept2.run ",
		"com.example.Kept3.run ",
		"com.example.Kept4.run ",
		"com.example.Feed.onClick com/example/Feed.kt",
		"com.example.Feed$1.accept com/example/Feed.kt",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("speedscope frames:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	dump := runIn(t, dir, "dump", "-q", "--mapping", "mapping.txt", "app.trace")
	for _, s := range []string{"com.example.Other.helper (Lcom/example/Item;)V", "com.example.Feed.bind (Lcom/example/Item;I)V", "com.example.Kept.run ()V",
		"com.example.Feed.onClick (Lcom/example/Item;)V", "com.example.Feed$1.accept (Lcom/example/Item;)V"} {
		if strings.Count(dump.stdout, s+"\n") != 2 {
			t.Errorf("dump: %q not on an enter and an exit line:\n%s", s, dump.stdout)
		}
	}
}

// TestDeobfuscationRule6Synthesized: the samples of methods the map marks
// as synthesized (by their class or themselves) carry the label, and only
// those.
func TestDeobfuscationRule6Synthesized(t *testing.T) {
	requireMapping(t)
	dir := t.TempDir()
	ruleTrace(t, dir, "art", rule6Methods)
	writeMap(t, filepath.Join(dir, "mapping.txt"), rule6Map)
	r := runIn(t, dir, "pprof", "-q", "--mapping", "mapping.txt", "-o", "out.pb.gz", "app.trace")
	if r.code != 0 {
		t.Fatalf("pprof: exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	var marked []string
	for _, s := range p.Sample {
		if v := s.Label["synthesized"]; len(v) > 0 {
			marked = append(marked, s.Location[0].Line[0].Function.Name+"="+strings.Join(v, ","))
		}
	}
	slices.Sort(marked)
	want := []string{
		"com.example.Feed$$ExternalSyntheticLambda0.<init>=true",
		"com.example.Feed$$ExternalSyntheticLambda0.run=true",
		"com.example.Gen.make=true",
	}
	if !reflect.DeepEqual(marked, want) {
		t.Errorf("synthesized samples %v, want %v", marked, want)
	}
}

// TestDeobfuscationRule7: --strict fails on a signature mismatch or an
// ambiguous method and passes a map that resolves everything; info counts
// each kind.
func TestDeobfuscationRule7(t *testing.T) {
	requireMapping(t)
	dir := t.TempDir()
	ruleTrace(t, dir, "art", ruleCases[3].methods) // rule 4: 2 mapped, 2 by name only, 1 ambiguous
	writeMap(t, filepath.Join(dir, "mapping.txt"), ruleCases[3].mapText)
	if r := runIn(t, dir, "folded", "--strict", "--mapping", "mapping.txt", "app.trace"); r.code != 1 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("--strict with mismatches: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	info := runIn(t, dir, "info", "--format", "json", "--mapping", "mapping.txt", "app.trace")
	want := map[string]int{"mapped": 2, "name_only": 2, "ambiguous": 1, "class_only": 0, "untouched": 1}
	if got := deobfCounts(t, info.stdout); !reflect.DeepEqual(got, want) {
		t.Errorf("info counts %v, want %v\n%s", got, want, info.stdout)
	}
	text := runIn(t, dir, "info", "--mapping", "mapping.txt", "app.trace")
	if s := "\nmapping     mapping.txt: 2 methods mapped, 2 by name only, 1 ambiguous, 0 class only, 1 untouched\n"; !strings.Contains(text.stdout, s) {
		t.Errorf("info text has no %q:\n%s", s, text.stdout)
	}

	clean := t.TempDir()
	ruleTrace(t, clean, "art", ruleCases[1].methods) // rule 2: every method mapped
	writeMap(t, filepath.Join(clean, "mapping.txt"), ruleCases[1].mapText)
	if r := runIn(t, clean, "folded", "--strict", "--no-thread", "--mapping", "mapping.txt", "app.trace"); r.code != 0 || r.stdout != ruleCases[1].want {
		t.Errorf("--strict with a clean map: exit %d, stderr %q", r.code, r.stderr)
	}
}

// deobfCounts finds the counts object in info's JSON: the object holding
// a "mapped" number, wherever core puts it.
func deobfCounts(t *testing.T, data string) map[string]int {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("info JSON: %v", err)
	}
	var find func(any) map[string]int
	find = func(v any) map[string]int {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["mapped"].(float64); ok {
				out := map[string]int{}
				for k, n := range v {
					if f, ok := n.(float64); ok {
						out[k] = int(f)
					}
				}
				return out
			}
			for _, e := range v {
				if c := find(e); c != nil {
					return c
				}
			}
		case []any:
			for _, e := range v {
				if c := find(e); c != nil {
					return c
				}
			}
		}
		return nil
	}
	return find(v)
}

// TestDeobfuscationRule8: the map id. A trace whose r8-map-id is not the
// map's is refused with one line naming both, unless
// --mapping-mismatch=warn; a directory is searched for the mapping.txt
// whose id the trace names.
func TestDeobfuscationRule8(t *testing.T) {
	requireMapping(t)
	dir := t.TempDir()
	methods := []ruleMethod{{"a.b", "a", "(I)V", "r8-map-id-aaaa1111"}}
	ruleTrace(t, dir, "art", methods)
	mapText := func(id string) string {
		return "# pg_map_id: " + id + "\ncom.example.Feed -> a.b:\n    void bind(int) -> a\n"
	}
	writeMap(t, filepath.Join(dir, "other.txt"), mapText("bbbb2222"))
	r := runIn(t, dir, "folded", "--no-thread", "--mapping", "other.txt", "app.trace")
	if r.code != 1 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stderr, "aaaa1111") || !strings.Contains(r.stderr, "bbbb2222") {
		t.Errorf("wrong map: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	want := folded("com.example.Feed.bind 10")
	r = runIn(t, dir, "folded", "--no-thread", "--mapping", "other.txt", "--mapping-mismatch=warn", "app.trace")
	if r.code != 0 || r.stdout != want || !strings.Contains(r.stderr, "bbbb2222") {
		t.Errorf("--mapping-mismatch=warn: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// app/build/outputs/mapping/<variant>/mapping.txt: the release map is
	// the trace's, the benchmark one is not.
	outputs := filepath.Join(dir, "app", "build", "outputs", "mapping")
	writeMap(t, filepath.Join(outputs, "benchmark", "mapping.txt"), mapText("bbbb2222"))
	writeMap(t, filepath.Join(outputs, "release", "mapping.txt"), strings.Replace(mapText("aaaa1111"), "bind", "show", 1))
	r = runIn(t, dir, "folded", "--no-thread", "--mapping", outputs, "app.trace")
	if want := folded("com.example.Feed.show 10"); r.code != 0 || r.stdout != want {
		t.Errorf("--mapping DIR: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
