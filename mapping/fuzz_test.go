package mapping

import (
	"bytes"
	"strings"
	"testing"
)

// fuzzMethods are the trace methods every fuzzed map is read for.
var fuzzMethods = []Method{
	{"a", "a", "()V", "SourceFile"},
	{"a", "b", "(La;I)La;", ""},
	{"a", "<init>", "(Lb;)V", "r8-map-id-abc"},
	{"a$1", "run", "()V", "A.java"},
	{"a.b.c", "a", "([[Lb;J)V", "Unknown Source"},
	{"b", "a", "", ""},
	{"java.lang.Object", "<init>", "()V", ""},
}

// FuzzRead reads any bytes as a map for a fixed set of trace methods:
// Read must not panic, and every result must keep the policy's shape.
func FuzzRead(f *testing.F) {
	f.Add([]byte("com.A -> a:\n    void foo() -> a\n"))
	f.Add([]byte(`# compiler: R8
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
# pg_map_id: abc
com.A -> a:
# {"id":"sourceFile","fileName":"A.kt"}
    1:4:void com.Log.d(java.lang.String):40:44 -> a
    1:4:void bind(com.B):27 -> a
    # {"id":"com.android.tools.r8.rewriteFrame","conditions":["throws(Ljava/lang/NullPointerException;)"],"actions":["removeInnerFrames(1)"]}
    5:9:void com.B.baz():51:51 -> a
    com.A foo(com.A,int) -> b
    # {'id':'com.android.tools.r8.residualsignature','signature':'(La;I)La;'}
    void <init>(com.B) -> <init>
      # {id:com.android.tools.r8.synthesized}
com.B -> b:
    java.lang.Object get() -> a
    java.lang.String get() -> a
com.Gone -> R8$$REMOVED$$CLASS$$0:
com.C -> a.b.c:
    void x(com.B[][],long) -> a
`))
	f.Add([]byte("\xef\xbb\xbfcom.A->a:\r\n\tvoid foo()->a\r\n"))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(bytes.NewReader(data), "f", fuzzMethods)
		if err != nil {
			if m != nil {
				t.Fatal("a map and an error")
			}
			if !strings.HasPrefix(err.Error(), "f") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		if len(m.Warnings) > maxWarnings+1 {
			t.Fatalf("%d warnings", len(m.Warnings))
		}
		for _, meth := range fuzzMethods {
			checkResult(t, meth, m.Resolve(meth))
		}
	})
}

// checkResult checks the shape of one result.
func checkResult(t *testing.T, meth Method, r Result) {
	t.Helper()
	joined := strings.Contains(r.Name, " | ")
	switch r.Status {
	case Untouched:
		want := Result{Name: meth.Class + "." + meth.Name, Class: meth.Class, Method: meth.Name, Signature: meth.Signature, Source: meth.Source}
		if r != want {
			t.Fatalf("untouched %+v changed: %+v", meth, r)
		}
	case Ambiguous:
		if !joined {
			t.Fatalf("ambiguous without \" | \": %+v", r)
		}
	case Mapped, ClassOnly:
		if joined || r.Name != r.Class+"."+r.Method {
			t.Fatalf("%v: name %q is not class %q . method %q", r.Status, r.Name, r.Class, r.Method)
		}
	case NameOnly:
		if !joined && r.Name != r.Class+"."+r.Method {
			t.Fatalf("name only: name %q is not class %q . method %q", r.Name, r.Class, r.Method)
		}
	default:
		t.Fatalf("status %v", r.Status)
	}
	if r.Status == ClassOnly && r.Method != meth.Name {
		t.Fatalf("class only renamed the method: %+v → %+v", meth, r)
	}
	if (meth.Name == "<init>" || meth.Name == "<clinit>") && r.Method != meth.Name {
		t.Fatalf("%s renamed: %+v", meth.Name, r)
	}
	if r.Status != Untouched && strings.HasPrefix(r.Source, mapIDPrefix) {
		t.Fatalf("source %q kept", r.Source)
	}
}
