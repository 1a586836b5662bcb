package mapping

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestLexical reads the same mapping written every way the format allows
// (docs/formats.md §19.2, §19.3).
func TestLexical(t *testing.T) {
	meth := Method{"a", "b", "(Ljava/lang/String;I)V", "SourceFile"}
	foo := Result{Name: "com.A.foo", Class: "com.A", Method: "foo", Signature: "(Ljava/lang/String;I)V", Status: Mapped}
	withSource := foo
	withSource.Source = "A.kt"
	cases := []struct {
		name string
		text string
		want Result
	}{
		{"plain", "com.A -> a:\n    void foo(java.lang.String,int) -> b\n", foo},
		{"tab indentation", "com.A -> a:\n\tvoid foo(java.lang.String,int) -> b\n", foo},
		{"two-space indentation", "com.A -> a:\n  void foo(java.lang.String,int) -> b\n", foo},
		{"no indentation", "com.A -> a:\nvoid foo(java.lang.String,int) -> b\n", foo},
		{"arrow without spaces", "com.A->a:\n    void foo(java.lang.String,int)->b\n", foo},
		{"CRLF", "com.A -> a:\r\n    void foo(java.lang.String,int) -> b\r\n", foo},
		{"BOM", "\xef\xbb\xbfcom.A -> a:\n    void foo(java.lang.String,int) -> b\n", foo},
		{"no final newline", "com.A -> a:\n    void foo(java.lang.String,int) -> b", foo},
		{"comments and blank lines", "# comment\n\n   \ncom.A -> a:\n    # comment\n\n    void foo(java.lang.String,int) -> b\n#\n", foo},
		{"spaces in the arguments", "com.A -> a:\n    void foo( java.lang.String , int ) -> b\n", foo},
		{"obfuscated and original range", "com.A -> a:\n    1:5:void foo(java.lang.String,int):10:14 -> b\n", foo},
		{"single original line", "com.A -> a:\n    1:5:void foo(java.lang.String,int):10 -> b\n", foo},
		{"ProGuard: no original range", "com.A -> a:\n    1:5:void foo(java.lang.String,int) -> b\n", foo},
		{"unknown range :0:0", "com.A -> a:\n    1:1:void foo(java.lang.String,int):0:0 -> b\n", foo},
		{"field lines skipped", "com.A -> a:\n    java.lang.String b -> b\n    int[] foo -> c\n    void foo(java.lang.String,int) -> b\n", foo},
		{"removed-class placeholder", "com.Gone -> R8$$REMOVED$$CLASS$$12:\ncom.A -> a:\n    void foo(java.lang.String,int) -> b\n", foo},
		{"sourceFile, double quotes", "com.A -> a:\n# {\"id\":\"sourceFile\",\"fileName\":\"A.kt\"}\n    void foo(java.lang.String,int) -> b\n", withSource},
		{"sourceFile, single quotes", "com.A -> a:\n# {'id':'sourceFile','fileName':'A.kt'}\n    void foo(java.lang.String,int) -> b\n", withSource},
		{"sourceFile, bare keys", "com.A -> a:\n# { id: sourceFile, fileName: 'A.kt' }\n    void foo(java.lang.String,int) -> b\n", withSource},
		{"sourceFile, indented", "com.A -> a:\n    # {\"id\":\"sourceFile\",\"fileName\":\"A.kt\"}\n    void foo(java.lang.String,int) -> b\n", withSource},
		{"metadata ids parsed and ignored", "# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n# {\"id\":\"partitionSourceFiles\",\"partitions\":[\"x\"]}\ncom.A -> a:\n    1:5:void foo(java.lang.String,int):10:14 -> b\n    # {\"id\":\"com.android.tools.r8.rewriteFrame\",\"conditions\":[\"throws(Ljava/lang/NullPointerException;)\"],\"actions\":[\"removeInnerFrames(1)\"]}\n    # {\"id\":\"com.android.tools.r8.outline\"}\n    # {\"id\":\"com.android.tools.r8.outlineCallsite\",\"positions\":{\"1\":4,\"2\":5},\"outline\":\"La;b()I\"}\n", foo},
		{"versions 1.0 2.0 2.1 experimental", "# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"1.0\"}\n# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.0\"}\n# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.1\"}\n# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"experimental\"}\ncom.A -> a:\n    void foo(java.lang.String,int) -> b\n", foo},
		{"Compose section", "com.A -> a:\n    void foo(java.lang.String,int) -> b\nComposeStackTrace -> $$compose:\n  m$123 -> a\n", foo},
		{"identifiers with $ and -", "com.A$In-ner -> a:\n    void foo-x1$2(java.lang.String,int) -> b\n",
			Result{Name: "com.A$In-ner.foo-x1$2", Class: "com.A$In-ner", Method: "foo-x1$2", Signature: "(Ljava/lang/String;I)V", Status: Mapped}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := readString(t, tc.text, meth)
			if len(m.Warnings) > 0 {
				t.Errorf("warnings: %q", m.Warnings)
			}
			if got := m.Resolve(meth); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestWarnings checks that problems are warnings with their line numbers
// and the lines around them still read.
func TestWarnings(t *testing.T) {
	text := `# {"id":"com.android.tools.r8.mapping","version":"2.2"}
com.A -> a:
    void foo( -> b
    garbage
    void foo(int) -> a
    # {"id":"com.example.unknown"}
    # {id:
    # {"fileName":"x"}
    x:void bar() -> c
    void baz():x -> d
bad line -> x y:
    # {"id":"com.android.tools.r8.residualsignature"}
# {"id":"com.android.tools.r8.mapping","version":"3.1"}
com.C -> c:
    # {"id":"com.example.newer"}
    # {"id":"sourceFile","fileName":"C.kt"}
    void run() -> a
`
	meths := []Method{{"a", "a", "(I)V", ""}, {"c", "a", "()V", ""}}
	m := readString(t, text, meths...)
	want := []string{
		`m.txt:3: malformed method line "void foo( -> b": expected NAME(ARGS)`,
		`m.txt:4: expected "->" in member line "garbage"`,
		`m.txt:6: unknown metadata id "com.example.unknown"`,
		`m.txt:7: metadata: value of "id": unexpected end`,
		`m.txt:8: metadata without an "id"`,
		`m.txt:9: malformed method line "x:void bar() -> c": expected "START:END:" before the return type`,
		`m.txt:10: malformed method line "void baz():x -> d": expected ":START[:END]" after the arguments`,
		`m.txt:11: malformed class line "bad line -> x y:": expected "ORIG -> OBF:"`,
		`m.txt:13: map version 3.1 is newer than 2.2: reading the metadata this reader knows, ignoring the rest`,
	}
	if got := strings.Join(m.Warnings, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if got := m.Resolve(meths[0]); got.Name != "com.A.foo" || got.Status != Mapped {
		t.Errorf("after warnings: %+v", got)
	}
	if got := m.Resolve(meths[1]); got.Name != "com.C.run" || got.Source != "C.kt" {
		t.Errorf("after a newer version: %+v", got)
	}
	if m.Version != "3.1" {
		t.Errorf("Version %q", m.Version)
	}
}

// TestWarningCap stores at most maxWarnings and counts the rest.
func TestWarningCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("com.A -> a:\n")
	for range maxWarnings + 50 {
		b.WriteString("    junk\n")
	}
	m := readString(t, b.String(), Method{"a", "a", "", ""})
	if len(m.Warnings) != maxWarnings+1 || m.Warnings[maxWarnings] != "m.txt: 50 more warnings" {
		t.Errorf("%d warnings, last %q", len(m.Warnings), m.Warnings[len(m.Warnings)-1])
	}
}

// TestLongLine skips a line over maxLine with a warning and reads on.
func TestLongLine(t *testing.T) {
	text := "com.A -> a:\n    # " + strings.Repeat("x", maxLine+10) + "\n    void foo() -> a\n"
	m := readString(t, text, Method{"a", "a", "()V", ""})
	if len(m.Warnings) != 1 || m.Warnings[0] != fmt.Sprintf("m.txt:2: longer than %d bytes, skipped", maxLine) {
		t.Errorf("warnings %q", m.Warnings)
	}
	if got := m.Resolve(Method{"a", "a", "()V", ""}); got.Name != "com.A.foo" {
		t.Errorf("after the long line: %+v", got)
	}
}

// TestNotMapping: a file that is not a mapping is one error naming it.
func TestNotMapping(t *testing.T) {
	cases := []struct {
		name, text, err string
	}{
		{"empty", "", `x: not a mapping file: no class line "ORIG -> OBF:" (0 lines)`},
		{"comments only", "# hello\n# world\n", `x: not a mapping file: no class line "ORIG -> OBF:" (2 lines)`},
		{"binary", "SLOW\x03\x00\x20\x00", `x: not a mapping file: NUL byte at offset 5 (line 1): binary data`},
		{"trace text key", "*version\n3\ndata-file-overflow=false\n*threads\n1\tmain\n*methods\n*end\n", `x: not a mapping file: line 1: expected a class line "ORIG -> OBF:", found "*version"`},
		{"JSON", `{"shared": {"frames": []}, "profiles": []}`, `x: not a mapping file: line 1: expected a class line "ORIG -> OBF:", found "{\"shared\": {\"frames\": []}, \"profiles\": ["…`},
		{"Java", "package com.x;\n\nimport java.util.List;\n\npublic class A {\n  void f(List<String> l) { l.forEach(s -> g(s)); }\n}\n", `x: not a mapping file: line 1: expected a class line "ORIG -> OBF:", found "package com.x;"`},
		{"many lines", strings.Repeat("hello -> world\n", 40) + "com.A -> a:\n", `x: not a mapping file: line 1: expected a class line "ORIG -> OBF:", found "hello -> world"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.text), "x", nil)
			if err == nil || err.Error() != tc.err {
				t.Errorf("err %v\nwant %s", err, tc.err)
			}
		})
	}
	// A map of R8 header comments only is an empty map, not an error.
	m, err := Read(strings.NewReader("# compiler: R8\n# pg_map_id: abc1234\n"), "x", nil)
	if err != nil || m.ID != "abc1234" {
		t.Errorf("header-only map: %v, %+v", err, m)
	}
}

// TestGzip reads a compressed map, twice when the second pass is needed.
func TestGzip(t *testing.T) {
	text := "com.Other -> c:\n# {\"id\":\"sourceFile\",\"fileName\":\"Other.kt\"}\ncom.Main -> a:\n    void com.Other.helper() -> b\n"
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(text))
	zw.Close()
	meth := Method{"a", "b", "()V", ""}
	m, err := Read(bytes.NewReader(buf.Bytes()), "m.txt.gz", []Method{meth})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Name: "com.Other.helper", Class: "com.Other", Method: "helper", Signature: "()V", Source: "Other.kt", Status: Mapped}
	if got := m.Resolve(meth); got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// Not seekable: no second pass, the owner's source is unknown.
	m, err = Read(io.MultiReader(bytes.NewReader(buf.Bytes())), "m.txt.gz", []Method{meth})
	if err != nil {
		t.Fatal(err)
	}
	want.Source = ""
	if got := m.Resolve(meth); got != want {
		t.Errorf("one pass: got %+v\nwant %+v", got, want)
	}
	if _, err := Read(bytes.NewReader(buf.Bytes()[:20]), "m.txt.gz", nil); err == nil {
		t.Error("a truncated gzip stream read without an error")
	}
}

// TestKeepsOnlyWhatTheTraceNeeds checks the reader's tables against a map
// of many classes of which the trace uses two.
func TestKeepsOnlyWhatTheTraceNeeds(t *testing.T) {
	var b strings.Builder
	b.WriteString("# compiler: R8\n# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "com.ex.C%d -> c%d:\n# {\"id\":\"sourceFile\",\"fileName\":\"C%d.kt\"}\n", i, i, i)
		fmt.Fprintf(&b, "    int count%d -> a\n", i)
		fmt.Fprintf(&b, "    1:3:void com.ex.Log.d(java.lang.String):5:7 -> a\n    1:3:void run%d(com.ex.C%d):10 -> a\n", i, (i+1)%2000)
		fmt.Fprintf(&b, "    # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"(Lc%d;)V\"}\n", (i+1)%2000)
		fmt.Fprintf(&b, "    void other%d() -> b\n    # {\"id\":\"com.unknown\"}\n", i)
	}
	b.WriteString("com.ex.Log -> l:\n# {\"id\":\"sourceFile\",\"fileName\":\"Log.kt\"}\n")
	meths := []Method{{"c7", "a", "(Lc8;)V", ""}, {"c9$1", "run", "()V", ""}}
	m := readString(t, b.String(), meths...)
	if got := m.Resolve(meths[0]); got.Name != "com.ex.C7.run7" || got.Signature != "(Lcom/ex/C8;)V" || got.Source != "C7.kt" {
		t.Errorf("got %+v", got)
	}
	if got := m.Resolve(meths[1]); got.Name != "com.ex.C9$1.run" || got.Status != ClassOnly {
		t.Errorf("got %+v", got)
	}
	members := 0
	for _, c := range m.classes {
		members += len(c.members)
	}
	// c7 and the outer c9; the descriptor's c8; the owner com.ex.Log.
	if len(m.classes) != 2 || members != 3 || len(m.obfOrig) != 1 || len(m.origNames) != 0 || len(m.owners) != 1 {
		t.Errorf("kept %d classes, %d members, %d obfOrig, %d origNames, %d owners", len(m.classes), members, len(m.obfOrig), len(m.origNames), len(m.owners))
	}
	// One warning: the unknown id under c7, the only class whose metadata is read.
	if len(m.Warnings) != 1 {
		t.Errorf("warnings %q", m.Warnings)
	}
}

// TestDuplicateClass keeps the first class line of an obfuscated name the
// trace uses and warns about the second.
func TestDuplicateClass(t *testing.T) {
	text := "com.A -> a:\n    void foo() -> a\ncom.B -> a:\n    void bar() -> a\ncom.C -> c:\ncom.D -> c:\n"
	meth := Method{"a", "a", "()V", ""}
	m := readString(t, text, meth)
	if got := m.Resolve(meth); got.Name != "com.A.foo" {
		t.Errorf("got %+v", got)
	}
	want := `m.txt:3: class a is mapped again: this class line is ignored`
	if len(m.Warnings) != 1 || m.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", m.Warnings, want)
	}
}

// TestOnlyTheGivenMethods: a map read for no methods keeps nothing, and
// Resolve leaves a method it was not read for untouched.
func TestOnlyTheGivenMethods(t *testing.T) {
	m := readString(t, "com.A -> a:\n    void foo() -> a\n")
	if len(m.classes)+len(m.owners)+len(m.obfOrig)+len(m.origNames) != 0 {
		t.Errorf("kept %d classes, %d owners, %d obfOrig, %d origNames", len(m.classes), len(m.owners), len(m.obfOrig), len(m.origNames))
	}
	if got := m.Resolve(Method{"a", "a", "()V", ""}); got.Status != Untouched {
		t.Errorf("got %+v", got)
	}
}
