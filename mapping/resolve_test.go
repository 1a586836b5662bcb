package mapping

import (
	"strings"
	"testing"
)

// readString reads a map for the given methods, failing the test on an
// error.
func readString(t *testing.T, text string, methods ...Method) *Map {
	t.Helper()
	m, err := Read(strings.NewReader(text), "m.txt", methods)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestResolveRules has one case (or more) per rule of docs/formats.md
// §19.5, with hand-computed results.
func TestResolveRules(t *testing.T) {
	const feed = `# compiler: R8
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
# pg_map_id: 7fe8b95
com.example.app.ui.FeedAdapter -> a.b.c:
# {"id":"sourceFile","fileName":"FeedAdapter.kt"}
    java.util.List items -> d
    1:4:void <init>(java.util.List):12:15 -> <init>
    5:9:void com.example.app.util.Log.d(java.lang.String):40:44 -> a
    5:9:void bind(com.example.app.model.Item):27 -> a
    10:12:void bind(com.example.app.model.Item):28:30 -> a
    int getItemCount() -> b
    # {"id":"com.android.tools.r8.residualsignature","signature":"()I"}
    void onClick(android.view.View) -> onClick
com.example.app.model.Item -> a.b.d:
com.example.app.util.Log -> a.b.e:
# {"id":"sourceFile","fileName":"Log.kt"}
`
	cases := []struct {
		name string
		text string
		meth Method
		want Result
	}{
		{
			name: "1 class: mapped, inline chain, map's source",
			text: feed,
			meth: Method{"a.b.c", "a", "(La/b/d;)V", "r8-map-id-7fe8b95"},
			want: Result{Name: "com.example.app.ui.FeedAdapter.bind", Class: "com.example.app.ui.FeedAdapter", Method: "bind",
				Signature: "(Lcom/example/app/model/Item;)V", Source: "FeedAdapter.kt", Status: Mapped},
		},
		{
			name: "1 class not in the map: untouched, all as in the trace",
			text: feed,
			meth: Method{"java.lang.String", "length", "()I", "SourceFile"},
			want: Result{Name: "java.lang.String.length", Class: "java.lang.String", Method: "length", Signature: "()I", Source: "SourceFile", Status: Untouched},
		},
		{
			name: "1 OUTER$suffix: ORIG(OUTER)$suffix, class only, OUTER's source",
			text: feed,
			meth: Method{"a.b.c$1", "run", "(La/b/d;)V", "SourceFile"},
			want: Result{Name: "com.example.app.ui.FeedAdapter$1.run", Class: "com.example.app.ui.FeedAdapter$1", Method: "run",
				Signature: "(Lcom/example/app/model/Item;)V", Source: "FeedAdapter.kt", Status: ClassOnly},
		},
		{
			name: "1 OUTER$suffix: the longest mapped OUTER",
			text: "com.A -> a:\ncom.A$Inner -> a$b:\n",
			meth: Method{"a$b$1$2", "run", "()V", ""},
			want: Result{Name: "com.A$Inner$1$2.run", Class: "com.A$Inner$1$2", Method: "run", Signature: "()V", Status: ClassOnly},
		},
		{
			name: "1 $suffix of an unmapped class: untouched",
			text: feed,
			meth: Method{"x$1", "run", "()V", "X.java"},
			want: Result{Name: "x$1.run", Class: "x$1", Method: "run", Signature: "()V", Source: "X.java", Status: Untouched},
		},
		{
			name: "2 inline chain: the outermost line, not the inlinee",
			text: "com.Main -> a:\n    1:1:void foo():54:54 -> a\n    1:1:void test():50 -> a\n    2:2:void bar():59:59 -> a\n    2:2:void foo():55 -> a\n    2:2:void test():50 -> a\n    3:3:void baz():64:64 -> a\n    3:3:void bar():60 -> a\n    3:3:void foo():55 -> a\n    3:3:void test():50 -> a\n",
			meth: Method{"a", "a", "()V", ""},
			want: Result{Name: "com.Main.test", Class: "com.Main", Method: "test", Signature: "()V", Status: Mapped},
		},
		{
			name: "2 comment, metadata and field lines do not break a chain",
			text: "com.Main -> a:\n    1:4:void inner():10 -> a\n    # {\"id\":\"com.android.tools.r8.rewriteFrame\",\"conditions\":[\"throws(Ljava/lang/NullPointerException;)\"],\"actions\":[\"removeInnerFrames(1)\"]}\n    # a comment\n\n    int f -> b\n    1:4:void outer():20 -> a\n",
			meth: Method{"a", "a", "()V", ""},
			want: Result{Name: "com.Main.outer", Class: "com.Main", Method: "outer", Signature: "()V", Status: Mapped},
		},
		{
			name: "2 a different range starts another candidate",
			text: "com.Main -> a:\n    1:4:void x():10:13 -> a\n    5:9:void y():20:24 -> a\n",
			meth: Method{"a", "a", "()V", ""},
			want: Result{Name: "com.Main.x | com.Main.y", Class: "com.Main", Method: "x", Signature: "()V", Status: Ambiguous},
		},
		{
			name: "2 lines without a range are candidates by themselves",
			text: "com.Main -> a:\n    void x() -> a\n    void y() -> a\n",
			meth: Method{"a", "a", "()V", ""},
			want: Result{Name: "com.Main.x | com.Main.y", Class: "com.Main", Method: "x", Signature: "()V", Status: Ambiguous},
		},
		{
			name: "3 residual metadata: removed argument",
			text: "com.Main -> a:\n    1:1:void test(java.lang.Object):40:40 -> a\n      # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"()V\"}\n    void other(java.lang.Object) -> a\n",
			meth: Method{"a", "a", "()V", ""},
			want: Result{Name: "com.Main.test", Class: "com.Main", Method: "test", Signature: "(Ljava/lang/Object;)V", Status: Mapped},
		},
		{
			name: "3 residual metadata holds for every line of the same original method",
			text: "com.Main -> a:\n    1:1:void test(com.B):40:40 -> a\n      # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"(Ljava/lang/Object;)V\"}\n    2:2:void com.Log.d():5:5 -> a\n    2:2:void test(com.B):41 -> a\n    void test(java.lang.String) -> a\ncom.B -> b:\n",
			meth: Method{"a", "a", "(Ljava/lang/Object;)V", ""},
			want: Result{Name: "com.Main.test", Class: "com.Main", Method: "test", Signature: "(Lcom/B;)V", Status: Mapped},
		},
		{
			name: "3 computed residual: class types mapped original → obfuscated",
			text: "com.Main -> a:\n    void foo(com.B) -> a\n    void foo(int) -> a\n    void foo(java.lang.String) -> a\ncom.B -> b:\n",
			meth: Method{"a", "a", "(Lb;)V", ""},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "(Lcom/B;)V", Status: Mapped},
		},
		{
			name: "3 computed residual: an unmapped type stays itself",
			text: "com.Main -> a:\n    void foo(com.B) -> a\n    void foo(java.lang.String) -> a\ncom.B -> b:\n",
			meth: Method{"a", "a", "(Ljava/lang/String;)V", ""},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "(Ljava/lang/String;)V", Status: Mapped},
		},
		{
			name: "3 computed residual: a mapped original name in the trace is not itself",
			text: "com.Main -> a:\n    void foo(com.B) -> a\ncom.B -> b:\n",
			meth: Method{"a", "a", "(Lcom/B;)V", ""},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "(Lcom/B;)V", Status: NameOnly},
		},
		{
			name: "3 computed residual: arrays, primitives, a class line seen later",
			text: "com.Main -> a:\n    com.B[] foo(byte[][],com.B[],long,boolean) -> a\n    void foo(byte[][],com.B,long,boolean) -> a\ncom.B -> b:\n",
			meth: Method{"a", "a", "([[B[Lb;JZ)[Lb;", ""},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "([[B[Lcom/B;JZ)[Lcom/B;", Status: Mapped},
		},
		{
			name: "4 several originals match: ambiguous, sorted",
			text: "com.A -> a:\n    1:1:void com.B.baz():51:51 -> a\n    2:2:void baz():51:51 -> a\n",
			meth: Method{"a", "a", "()V", ""},
			want: Result{Name: "com.A.baz | com.B.baz", Class: "com.A", Method: "baz", Signature: "()V", Status: Ambiguous},
		},
		{
			name: "4 a line qualified with its own class is the same original method",
			text: "com.Main -> a:\n    1:2:void foo():10:11 -> a\n    3:4:void com.Main.foo():12:13 -> a\n",
			meth: Method{"a", "a", "()V", ""},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "()V", Status: Mapped},
		},
		{
			name: "4 none matches: by name alone, one original",
			text: "com.Main -> a:\n    void foo(int) -> a\n",
			meth: Method{"a", "a", "(J)V", ""},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "(I)V", Status: NameOnly},
		},
		{
			name: "4 none matches: by name alone, several originals joined",
			text: "com.Main -> a:\n    void foo(int) -> a\n    void bar(int) -> a\n",
			meth: Method{"a", "a", "(J)V", ""},
			want: Result{Name: "com.Main.bar | com.Main.foo", Class: "com.Main", Method: "bar", Signature: "(I)V", Status: NameOnly},
		},
		{
			name: "4 no descriptor in the trace: by name, mapped",
			text: "com.Main -> a:\n    void foo(int) -> a\n",
			meth: Method{"a", "a", "", ""},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "(I)V", Status: Mapped},
		},
		{
			name: "4 overloads differing only by return type: the bridge by its descriptor",
			text: "com.StringSupplier -> b:\n    java.lang.Object get() -> a\n      # {\"id\":\"com.android.tools.r8.synthesized\"}\n    java.lang.String get() -> a\n",
			meth: Method{"b", "a", "()Ljava/lang/Object;", ""},
			want: Result{Name: "com.StringSupplier.get", Class: "com.StringSupplier", Method: "get", Signature: "()Ljava/lang/Object;", Status: Mapped, Synthesized: true},
		},
		{
			name: "4 overloads differing only by return type: the other",
			text: "com.StringSupplier -> b:\n    java.lang.Object get() -> a\n      # {\"id\":\"com.android.tools.r8.synthesized\"}\n    java.lang.String get() -> a\n",
			meth: Method{"b", "a", "()Ljava/lang/String;", ""},
			want: Result{Name: "com.StringSupplier.get", Class: "com.StringSupplier", Method: "get", Signature: "()Ljava/lang/String;", Status: Mapped},
		},
		{
			name: "4 overloads differing only by return type, no descriptor: ambiguous, the name twice",
			text: "com.StringSupplier -> b:\n    java.lang.Object get() -> a\n    java.lang.String get() -> a\n",
			meth: Method{"b", "a", "", ""},
			want: Result{Name: "com.StringSupplier.get | com.StringSupplier.get", Class: "com.StringSupplier", Method: "get", Signature: "()Ljava/lang/Object;", Status: Ambiguous},
		},
		{
			name: "5 moved method: the qualified owner and its source, class line after",
			text: "com.Main -> a:\n# {\"id\":\"sourceFile\",\"fileName\":\"Main.kt\"}\n    void com.example.Other.helper(int) -> b\ncom.example.Other -> c:\n# {\"id\":\"sourceFile\",\"fileName\":\"Other.kt\"}\n",
			meth: Method{"a", "b", "(I)V", "SourceFile"},
			want: Result{Name: "com.example.Other.helper", Class: "com.example.Other", Method: "helper", Signature: "(I)V", Source: "Other.kt", Status: Mapped},
		},
		{
			name: "5 moved method: the owner's class line before (second pass)",
			text: "com.example.Other -> c:\n# {\"id\":\"sourceFile\",\"fileName\":\"Other.kt\"}\ncom.Main -> a:\n# {\"id\":\"sourceFile\",\"fileName\":\"Main.kt\"}\n    void com.example.Other.helper(int) -> b\n",
			meth: Method{"a", "b", "(I)V", "SourceFile"},
			want: Result{Name: "com.example.Other.helper", Class: "com.example.Other", Method: "helper", Signature: "(I)V", Source: "Other.kt", Status: Mapped},
		},
		{
			name: "5 moved method: owner without sourceFile, the trace's source",
			text: "com.Main -> a:\n# {\"id\":\"sourceFile\",\"fileName\":\"Main.kt\"}\n    void com.example.Other.helper(int) -> b\n",
			meth: Method{"a", "b", "(I)V", "Main.java"},
			want: Result{Name: "com.example.Other.helper", Class: "com.example.Other", Method: "helper", Signature: "(I)V", Source: "Main.java", Status: Mapped},
		},
		{
			name: "5 the trace's source when the map has none",
			text: "com.Main -> a:\n    void foo() -> a\n",
			meth: Method{"a", "a", "()V", "Main.java"},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "()V", Source: "Main.java", Status: Mapped},
		},
		{
			name: "5 SourceFile names none",
			text: "com.Main -> a:\n    void foo() -> a\n",
			meth: Method{"a", "a", "()V", "SourceFile"},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "()V", Status: Mapped},
		},
		{
			name: "5 Unknown Source names none",
			text: "com.Main -> a:\n    void foo() -> a\n",
			meth: Method{"a", "a", "()V", "Unknown Source"},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "()V", Status: Mapped},
		},
		{
			name: "5 r8-map-id- names none",
			text: "com.Main -> a:\n    void foo() -> a\n",
			meth: Method{"a", "a", "()V", "r8-map-id-0123456789abcdef"},
			want: Result{Name: "com.Main.foo", Class: "com.Main", Method: "foo", Signature: "()V", Status: Mapped},
		},
		{
			name: "6 not listed: class only, name kept, descriptor deobfuscated",
			text: feed,
			meth: Method{"a.b.c", "zz", "(La/b/d;Ljava/lang/String;)V", "SourceFile"},
			want: Result{Name: "com.example.app.ui.FeedAdapter.zz", Class: "com.example.app.ui.FeedAdapter", Method: "zz",
				Signature: "(Lcom/example/app/model/Item;Ljava/lang/String;)V", Source: "FeedAdapter.kt", Status: ClassOnly},
		},
		{
			name: "6 identity member line (kept name) maps",
			text: feed,
			meth: Method{"a.b.c", "onClick", "(Landroid/view/View;)V", ""},
			want: Result{Name: "com.example.app.ui.FeedAdapter.onClick", Class: "com.example.app.ui.FeedAdapter", Method: "onClick",
				Signature: "(Landroid/view/View;)V", Source: "FeedAdapter.kt", Status: Mapped},
		},
		{
			name: "6 <init> never renamed",
			text: feed,
			meth: Method{"a.b.c", "<init>", "(Ljava/util/List;)V", ""},
			want: Result{Name: "com.example.app.ui.FeedAdapter.<init>", Class: "com.example.app.ui.FeedAdapter", Method: "<init>",
				Signature: "(Ljava/util/List;)V", Source: "FeedAdapter.kt", Status: Mapped},
		},
		{
			name: "6 <clinit> not listed: class only",
			text: feed,
			meth: Method{"a.b.c", "<clinit>", "()V", ""},
			want: Result{Name: "com.example.app.ui.FeedAdapter.<clinit>", Class: "com.example.app.ui.FeedAdapter", Method: "<clinit>",
				Signature: "()V", Source: "FeedAdapter.kt", Status: ClassOnly},
		},
		{
			name: "6 a line renaming to <init> is no candidate for <init>",
			text: "com.Main -> a:\n    void foo() -> <init>\n",
			meth: Method{"a", "<init>", "()V", ""},
			want: Result{Name: "com.Main.<init>", Class: "com.Main", Method: "<init>", Signature: "()V", Status: ClassOnly},
		},
		{
			name: "6 synthesized class: marked, name kept",
			text: "com.Main$$ExternalSyntheticLambda0 -> a:\n# {\"id\":\"sourceFile\",\"fileName\":\"R8$$SyntheticClass\"}\n# {\"id\":\"com.android.tools.r8.synthesized\"}\n    void run() -> run\n",
			meth: Method{"a", "run", "()V", "R8$$SyntheticClass"},
			want: Result{Name: "com.Main$$ExternalSyntheticLambda0.run", Class: "com.Main$$ExternalSyntheticLambda0", Method: "run", Signature: "()V",
				Source: "R8$$SyntheticClass", Status: Mapped, Synthesized: true},
		},
		{
			name: "6 synthesized class, method not listed: marked",
			text: "com.Main$$ExternalSyntheticLambda0 -> a:\n# {\"id\":\"com.android.tools.r8.synthesized\"}\n",
			meth: Method{"a", "run", "()V", ""},
			want: Result{Name: "com.Main$$ExternalSyntheticLambda0.run", Class: "com.Main$$ExternalSyntheticLambda0", Method: "run", Signature: "()V",
				Status: ClassOnly, Synthesized: true},
		},
		{
			name: "6 synthesized method",
			text: "com.A -> a:\n    int $r8$classId -> a\n      # {\"id\":\"com.android.tools.r8.synthesized\"}\n    1:1:void <init>(int):0:0 -> <init>\n      # {\"id\":\"com.android.tools.r8.synthesized\"}\n    1:1:void com.B.baz():51:51 -> a\n",
			meth: Method{"a", "<init>", "(I)V", ""},
			want: Result{Name: "com.A.<init>", Class: "com.A", Method: "<init>", Signature: "(I)V", Status: Mapped, Synthesized: true},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := readString(t, tc.text, tc.meth)
			if len(m.Warnings) > 0 {
				t.Errorf("warnings: %q", m.Warnings)
			}
			if got := m.Resolve(tc.meth); got != tc.want {
				t.Errorf("Resolve(%+v)\n got %+v\nwant %+v", tc.meth, got, tc.want)
			}
		})
	}
}
