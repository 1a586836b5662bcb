package mapping

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	id7  = "7fe8b95"
	id64 = "5b46fdc0a1d2c3b4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c"
)

// writeMap writes a one-class map with the given pg_map_id ("" for none).
func writeMap(t *testing.T, path, id, orig string, gz bool) {
	t.Helper()
	text := "# compiler: R8\n"
	if id != "" {
		text += "# pg_map_id: " + id + "\n"
	}
	text += orig + " -> a:\n    void foo() -> a\n"
	data := []byte(text)
	if gz {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		zw.Close()
		data = buf.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	writeMap(t, filepath.Join(dir, "release", "mapping.txt"), id7, "com.Release", false)
	writeMap(t, filepath.Join(dir, "benchmark", "mapping.txt.gz"), id64, "com.Benchmark", true)
	writeMap(t, filepath.Join(dir, ".git", "mapping.txt"), "1234567", "com.Hidden", false)
	single := filepath.Join(t.TempDir(), "only")
	writeMap(t, filepath.Join(single, "x", "mapping.txt"), "", "com.Only", false)

	meth := func(source string) []Method { return []Method{{"a", "a", "()V", source}} }
	cases := []struct {
		name, path string
		methods    []Method
		class, err string
	}{
		{"a file", filepath.Join(dir, "release", "mapping.txt"), meth(""), "com.Release", ""},
		{"a gzip file", filepath.Join(dir, "benchmark", "mapping.txt.gz"), meth(""), "com.Benchmark", ""},
		{"directory, 7-character id", dir, meth("r8-map-id-" + id7), "com.Release", ""},
		{"directory, 64-character id", dir, meth("r8-map-id-" + id64), "com.Benchmark", ""},
		{"directory, trace id a prefix of the map's", dir, meth("r8-map-id-" + id64[:7]), "com.Benchmark", ""},
		{"directory, map id a prefix of the trace's", dir, meth("r8-map-id-" + id7 + "00000"), "com.Release", ""},
		{"directory, no match", dir, meth("r8-map-id-1234567"), "",
			dir + ": no mapping.txt with the trace's map id (r8-map-id-1234567); found " +
				filepath.Join(dir, "benchmark", "mapping.txt.gz") + " (id " + id64 + "), " +
				filepath.Join(dir, "release", "mapping.txt") + " (id " + id7 + ") (give the file itself to use it anyway)"},
		{"directory, several and no ids", dir, meth("SourceFile"), "",
			dir + ": 2 mapping.txt files and the trace names no map id; give one: " +
				filepath.Join(dir, "benchmark", "mapping.txt.gz") + " (id " + id64 + "), " +
				filepath.Join(dir, "release", "mapping.txt") + " (id " + id7 + ")"},
		{"directory with one map, no ids", single, meth(""), "com.Only", ""},
		{"empty directory", t.TempDir(), meth(""), "", "no mapping.txt found"},
		{"missing", filepath.Join(dir, "nope"), meth(""), "", "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Open(tc.path, tc.methods)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err %v\nwant %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Resolve(tc.methods[0]); got.Class != tc.class {
				t.Errorf("class %q, want %q", got.Class, tc.class)
			}
		})
	}
}

func TestOpenSecondPass(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mapping.txt")
	text := "com.Other -> c:\n# {\"id\":\"sourceFile\",\"fileName\":\"Other.kt\"}\ncom.Main -> a:\n    void com.Other.helper() -> b\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	meth := Method{"a", "b", "()V", ""}
	m, err := Open(path, []Method{meth})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Resolve(meth); got.Source != "Other.kt" {
		t.Errorf("got %+v", got)
	}
}

func TestTraceIDs(t *testing.T) {
	got := TraceIDs([]Method{
		{Source: "r8-map-id-bbb"}, {Source: "SourceFile"}, {Source: "r8-map-id-aaa"},
		{Source: "r8-map-id-bbb"}, {Source: "r8-map-id-"}, {Source: "Main.java"},
	})
	if strings.Join(got, ",") != "aaa,bbb" {
		t.Errorf("TraceIDs = %q", got)
	}
	if got := TraceIDs(nil); got != nil {
		t.Errorf("TraceIDs(nil) = %q", got)
	}
}

func TestCheckID(t *testing.T) {
	cases := []struct {
		mapID string
		trace []string
		err   string
	}{
		{id7, nil, ""},
		{"", []string{id7}, ""},
		{id7, []string{id7}, ""},
		{id64, []string{id64[:7]}, ""},
		{id64[:7], []string{id64}, ""},
		{strings.ToUpper(id7), []string{id7}, ""},
		{id7, []string{"0000000", id7}, ""},
		{"7fe", []string{"7fe"}, ""},
		{id7, []string{"7fe"}, "m.txt: map id 7fe8b95 is not the trace's (r8-map-id-7fe): the map belongs to another build"},
		{id7, []string{"0000000"}, "m.txt: map id 7fe8b95 is not the trace's (r8-map-id-0000000): the map belongs to another build"},
		{id7, []string{"0000000", "1111111"}, "m.txt: map id 7fe8b95 is not the trace's (r8-map-id-0000000, r8-map-id-1111111): the map belongs to another build"},
	}
	for _, tc := range cases {
		m := &Map{Name: "m.txt", ID: tc.mapID}
		err := m.CheckID(tc.trace)
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.err {
				t.Errorf("CheckID(%q) on %q: %v, want %q", tc.trace, tc.mapID, err, tc.err)
			}
		} else if tc.err != "" {
			t.Errorf("CheckID(%q) on %q: nil, want %q", tc.trace, tc.mapID, tc.err)
		}
	}
}

func TestLooksObfuscated(t *testing.T) {
	m := func(class, source string) Method { return Method{Class: class, Name: "a", Source: source} }
	framework := []Method{m("java.lang.String", "String.java"), m("android.os.Looper", "Looper.java"), m("a.b", "SourceFile"),
		m("kotlin.a.b", ""), m("androidx.a.b", ""), m("com.android.a", ""), m("dalvik.a", ""), m("sun.a", ""), m("libcore.a", ""),
		m("org.apache.harmony.a", ""), m("javax.a", ""), m("kotlinx.a", "")}
	cases := []struct {
		name    string
		methods []Method
		want    bool
	}{
		{"nothing", nil, false},
		{"framework only, short names", framework[3:], false},
		{"r8-map-id", []Method{m("com.example.Main", "r8-map-id-"+id7)}, true},
		{"three short app classes", append(framework, m("a.b.c", ""), m("o2", ""), m("a.b.c$d", ""), m("a.a", "")), true},
		{"two short app classes", []Method{m("a.b.c", ""), m("o2", "")}, false},
		{"SourceFile", []Method{m("com.example.Main", "SourceFile"), m("com.example.Feed", "SourceFile"), m("com.example.Item", "SourceFile")}, true},
		{"readable app", []Method{m("com.example.Main", "Main.kt"), m("com.example.ui.Feed", "Feed.kt"), m("com.ex.A", "A.kt"), m("io.x.Y", "Y.kt")}, false},
		{"few minified among many", []Method{m("a.b", ""), m("a.c", ""), m("a.d", ""),
			m("com.e.A1", "A.kt"), m("com.e.A2", "A.kt"), m("com.e.A3", "A.kt"), m("com.e.A4", "A.kt"), m("com.e.A5", "A.kt"),
			m("com.e.A6", "A.kt"), m("com.e.A7", "A.kt"), m("com.e.A8", "A.kt"), m("com.e.A9", "A.kt"), m("com.e.A10", "A.kt")}, false},
		{"uppercase short names are not R8's", []Method{m("A", ""), m("B", ""), m("C", "")}, false},
	}
	for _, tc := range cases {
		if got := LooksObfuscated(tc.methods); got != tc.want {
			t.Errorf("%s: LooksObfuscated = %v, want %v", tc.name, got, tc.want)
		}
	}
}
