package tracegen

import (
	"reflect"
	"strings"
	"testing"
)

// smallPlan has one of each kind of map line.
func smallPlan() *Plan {
	return &Plan{MapID: "7fe8b95", Classes: []ClassPlan{
		{Orig: "com.example.Feed", Obf: "a.b", File: "Feed.kt", Source: SourceMapID,
			Fields: []string{"int size -> a"},
			Methods: []MethodPlan{
				{Name: "bind", Signature: "(Lcom/example/Item;)V", Obf: "a",
					Inlined: []Inlinee{{Owner: "com.example.Log", Name: "d", Signature: "(Ljava/lang/String;)V", RewriteFrame: true}}},
				{Name: "bind", Signature: "(I)Z", Obf: "a"},
				{Owner: "com.example.Util", Name: "helper", Signature: "([J)V", Obf: "b", NoLines: true},
				{Name: "drop", Signature: "(Lcom/example/Item;I)V", Obf: "c", Residual: "(La/c;)V", Synthesized: true},
			}},
		{Orig: "com.example.Item", Obf: "a.c", Source: SourceFileName},
		{Orig: "com.example.Main", Obf: "com.example.Main", File: "Main.java", Source: SourceKept,
			Methods: []MethodPlan{{Name: "main", Signature: "([Ljava/lang/String;)V"}}},
	}}
}

// TestPlanMaps checks the map text of a small plan, line by line against
// docs/formats.md §19 (hand-checked: inline chain before the method's own
// range, metadata after a method's first line, the qualified owner, the
// Java source form of the types).
func TestPlanMaps(t *testing.T) {
	p := smallPlan()
	wantR8 := `# compiler: R8
# compiler_version: 8.12.14
# min_api: 26
# common_typos_disable
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
# pg_map_id: 7fe8b95
# pg_map_hash: SHA-256 7fe8b95
com.example.Feed -> a.b:
# {"id":"sourceFile","fileName":"Feed.kt"}
    int size -> a
    1:5:void com.example.Log.d(java.lang.String):500:504 -> a
      # {"id":"com.android.tools.r8.rewriteFrame","conditions":["throws(Ljava/lang/NullPointerException;)"],"actions":["removeInnerFrames(1)"]}
    1:5:void bind(com.example.Item):11 -> a
    6:8:void bind(com.example.Item):10:12 -> a
    9:11:boolean bind(int):30:32 -> a
    void com.example.Util.helper(long[]) -> b
    12:14:void drop(com.example.Item,int):70:72 -> c
      # {"id":"com.android.tools.r8.residualsignature","signature":"(La/c;)V"}
      # {"id":"com.android.tools.r8.synthesized"}
com.example.Item -> a.c:
com.example.Main -> com.example.Main:
    1:3:void main(java.lang.String[]):10:12 -> main
`
	wantProGuard := `com.example.Feed -> a.b:
    int size -> a
    1:5:void com.example.Log.d(java.lang.String):500:504 -> a
    1:5:void bind(com.example.Item):11 -> a
    6:8:void bind(com.example.Item) -> a
    9:11:boolean bind(int) -> a
    void com.example.Util.helper(long[]) -> b
    12:14:void drop(com.example.Item,int) -> c
com.example.Item -> a.c:
com.example.Main -> com.example.Main:
    1:3:void main(java.lang.String[]) -> main
`
	if got := string(p.R8()); got != wantR8 {
		t.Errorf("R8 map:\n%s\nwant\n%s", got, wantR8)
	}
	if got := string(p.ProGuard()); got != wantProGuard {
		t.Errorf("ProGuard map:\n%s\nwant\n%s", got, wantProGuard)
	}
}

// TestObfuscateSmall renames a small trace and checks every method line of
// the result and of the ProGuard restoration.
func TestObfuscateSmall(t *testing.T) {
	tr := &Trace{Version: 3, Clock: "dual", VM: "art", Methods: []Method{
		{ID: 0, Class: "com.example.Main", Name: "main", Signature: "([Ljava/lang/String;)V", Source: "Main.java"},
		{ID: 4, Class: "com.example.Feed", Name: "bind", Signature: "(Lcom/example/Item;)V", Source: "Feed.kt"},
		{ID: 8, Class: "com.example.Feed", Name: "bind", Signature: "(I)Z", Source: "Feed.kt"},
		{ID: 12, Class: "com.example.Util", Name: "helper", Signature: "([J)V", Source: ""},
		{ID: 16, Class: "com.example.Feed", Name: "drop", Signature: "(Lcom/example/Item;I)V", Source: "Feed.kt"},
		{ID: 20, Class: "com.example.Feed", Name: "kept", Signature: "(Lcom/example/Item;)V", Source: "Feed.kt"},
		{ID: 24, Class: "com.example.Feed$2", Name: "run", Signature: "(Lcom/example/Item;)V", Source: "Feed.kt"},
		{ID: 28, Class: "com.example.Item", Name: "<init>", Signature: "()V", Source: ""},
		{ID: 32, Class: "java.lang.Object", Name: "wait", Signature: "()V", Source: "Object.java"},
	}}
	ob, err := Obfuscate(tr, smallPlan())
	if err != nil {
		t.Fatal(err)
	}
	const id = "r8-map-id-7fe8b95"
	want := []Method{
		{ID: 0, Class: "com.example.Main", Name: "main", Signature: "([Ljava/lang/String;)V", Source: "Main.java"},
		{ID: 4, Class: "a.b", Name: "a", Signature: "(La/c;)V", Source: id},
		{ID: 8, Class: "a.b", Name: "a", Signature: "(I)Z", Source: id},
		{ID: 12, Class: "a.b", Name: "b", Signature: "([J)V", Source: id},
		{ID: 16, Class: "a.b", Name: "c", Signature: "(La/c;)V", Source: id},
		{ID: 20, Class: "a.b", Name: "kept", Signature: "(La/c;)V", Source: id},
		{ID: 24, Class: "a.b$2", Name: "run", Signature: "(La/c;)V", Source: id},
		{ID: 28, Class: "a.c", Name: "<init>", Signature: "()V", Source: "SourceFile"},
		{ID: 32, Class: "java.lang.Object", Name: "wait", Signature: "()V", Source: "Object.java"},
	}
	if !reflect.DeepEqual(ob.Trace.Methods, want) {
		t.Errorf("obfuscated methods:\n%+v\nwant\n%+v", ob.Trace.Methods, want)
	}
	if !reflect.DeepEqual(ob.Trace.Records, tr.Records) || !reflect.DeepEqual(ob.Trace.Threads, tr.Threads) {
		t.Error("records or threads changed")
	}
	// ProGuard: no sourceFile metadata, so Feed's and Feed$2's methods
	// lose their source; drop is found by its name alone.
	wantPG := append([]Method(nil), tr.Methods...)
	for _, i := range []int{1, 2, 4, 5, 6} {
		wantPG[i].Source = ""
	}
	if !reflect.DeepEqual(ob.ProGuardRestored.Methods, wantPG) {
		t.Errorf("ProGuard restores:\n%+v\nwant\n%+v", ob.ProGuardRestored.Methods, wantPG)
	}
}

// TestObfuscateRefuses: plans the map cannot undo exactly are errors.
func TestObfuscateRefuses(t *testing.T) {
	base := func() (*Trace, *Plan) {
		return &Trace{Methods: []Method{
			{ID: 4, Class: "com.example.Feed", Name: "bind", Signature: "(Lcom/example/Item;)V", Source: "Feed.kt"},
		}}, smallPlan()
	}
	for _, tt := range []struct {
		name   string
		change func(*Trace, *Plan)
		want   string
	}{
		{"source the map cannot restore", func(tr *Trace, p *Plan) { p.Classes[0].File = "" }, `source "Feed.kt"`},
		{"merged methods", func(tr *Trace, p *Plan) {
			p.Classes[0].Methods[1].Signature = "(Lcom/example/Item;)Z"
			p.Classes[0].Methods[1].Residual = "(La/c;)V"
		}, "ambiguous"},
		{"renamed constructor", func(tr *Trace, p *Plan) {
			p.Classes[2].Methods[0].Name = "<init>"
			p.Classes[2].Methods[0].Obf = "a"
		}, "constructors keep their names"},
		{"kept name taken", func(tr *Trace, p *Plan) { tr.Methods[0].Name = "b" }, "renamed name"},
		{"one dex method", func(tr *Trace, p *Plan) {
			p.Classes[0].Methods[1].Signature = "(Lcom/example/Item;)Z"
			p.Classes[0].Methods[1].Residual = "(La/c;)V"
			tr.Methods = append(tr.Methods, Method{ID: 8, Class: "com.example.Feed", Name: "bind", Signature: "(Lcom/example/Item;)Z"})
		}, "are both a.b.a(La/c;)V"},
		{"no map id", func(tr *Trace, p *Plan) { p.MapID = "" }, "without a map id"},
		{"bad descriptor", func(tr *Trace, p *Plan) { p.Classes[0].Methods[1].Signature = "(Q)V" }, "bad type"},
	} {
		tr, p := base()
		tt.change(tr, p)
		_, err := Obfuscate(tr, p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestMinifiedApp: both builds in both styles round-trip through the R8
// map, and the ProGuard map loses only sources.
func TestMinifiedApp(t *testing.T) {
	for _, vm := range []string{"art", "dalvik"} {
		for build := range 2 {
			tr, p := MinifiedApp(vm, build)
			ob, err := Obfuscate(tr, p)
			if err != nil {
				t.Fatalf("%s build %d: %v", vm, build, err)
			}
			renamed, lost := 0, 0
			for i, m := range tr.Methods {
				o, pg := ob.Trace.Methods[i], ob.ProGuardRestored.Methods[i]
				if o.Class+o.Name+o.Signature != m.Class+m.Name+m.Signature {
					renamed++
				}
				if pg.Source != m.Source {
					lost++
					pg.Source = m.Source
				}
				if pg != m {
					t.Errorf("%s build %d: ProGuard restores %+v as %+v", vm, build, m, pg)
				}
			}
			if renamed != 19 || lost != 17 {
				t.Errorf("%s build %d: %d methods renamed, %d sources lost with ProGuard; want 19, 17", vm, build, renamed, lost)
			}
		}
	}
	a, _ := MinifiedApp("art", 0)
	b, _ := MinifiedApp("art", 1)
	if reflect.DeepEqual(a.Records, b.Records) || !reflect.DeepEqual(a.Methods[:len(a.Methods)], b.Methods[:len(a.Methods)]) {
		t.Error("build 1 should have other times and the same methods")
	}
}

func TestDescriptors(t *testing.T) {
	ret, params := javaSignature("([[Lcom/a/B$C;IJ[Z)[Ljava/lang/String;")
	if ret != "java.lang.String[]" || params != "com.a.B$C[][],int,long,boolean[]" {
		t.Errorf("javaSignature = %q, %q", ret, params)
	}
	for _, bad := range []string{"", "V", "(", "(L;)V", "(I)", "(I)VV", "([)V"} {
		if _, _, err := parseDescriptor(bad); err == nil {
			t.Errorf("parseDescriptor(%q) succeeded", bad)
		}
	}
}
