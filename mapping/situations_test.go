package mapping

import "testing"

// TestSituations re-expresses the situations R8's retrace/stacksamples
// tests and the proguard crate's cases document (docs/formats.md §19.5):
// our own maps, one Read for all the trace's methods.
func TestSituations(t *testing.T) {
	type want struct {
		meth Method
		res  Result
	}
	cases := []struct {
		name string
		text string
		want []want
	}{
		{
			name: "inline positions: the outermost frame",
			text: `com.ex.Main -> a:
# {"id":"sourceFile","fileName":"Main.java"}
    1:1:void foo():54:54 -> a
    1:1:void test():50 -> a
    2:2:void bar():59:59 -> a
    2:2:void foo():55 -> a
    2:2:void test():50 -> a
    3:3:void baz():64:64 -> a
    3:3:void bar():60 -> a
    3:3:void foo():55 -> a
    3:3:void test():50 -> a
    4:9:void main(java.lang.String[]):40:45 -> main
`,
			want: []want{
				{Method{"a", "a", "()V", "SourceFile"}, Result{Name: "com.ex.Main.test", Class: "com.ex.Main", Method: "test", Signature: "()V", Source: "Main.java", Status: Mapped}},
				{Method{"a", "main", "([Ljava/lang/String;)V", "SourceFile"}, Result{Name: "com.ex.Main.main", Class: "com.ex.Main", Method: "main", Signature: "([Ljava/lang/String;)V", Source: "Main.java", Status: Mapped}},
			},
		},
		{
			name: "overload differing only by return type (bridge)",
			text: `com.ex.StringSupplier -> b:
    java.lang.Object get() -> a
      # {"id":"com.android.tools.r8.synthesized"}
    java.lang.String get() -> a
com.ex.Main -> a:
    void main(java.lang.String[]) -> main
`,
			want: []want{
				{Method{"b", "a", "()Ljava/lang/Object;", ""}, Result{Name: "com.ex.StringSupplier.get", Class: "com.ex.StringSupplier", Method: "get", Signature: "()Ljava/lang/Object;", Status: Mapped, Synthesized: true}},
				{Method{"b", "a", "()Ljava/lang/String;", ""}, Result{Name: "com.ex.StringSupplier.get", Class: "com.ex.StringSupplier", Method: "get", Signature: "()Ljava/lang/String;", Status: Mapped}},
			},
		},
		{
			name: "removed argument: residual ()V",
			text: `com.ex.Main -> a:
    1:4:void test(java.lang.Object):47:50 -> a
      # {"id":"com.android.tools.r8.residualsignature","signature":"()V"}
`,
			want: []want{
				{Method{"a", "a", "()V", ""}, Result{Name: "com.ex.Main.test", Class: "com.ex.Main", Method: "test", Signature: "(Ljava/lang/Object;)V", Status: Mapped}},
			},
		},
		{
			name: "staticized method without residual",
			text: `com.ex.Main -> a:
    1:4:void test():47:50 -> a
`,
			want: []want{
				{Method{"a", "a", "()V", ""}, Result{Name: "com.ex.Main.test", Class: "com.ex.Main", Method: "test", Signature: "()V", Status: Mapped}},
			},
		},
		{
			name: "vertical class merging: removed class, qualified owner",
			text: `com.ex.A -> R8$$REMOVED$$CLASS$$0:
# {"id":"sourceFile","fileName":"A.java"}
com.ex.B -> a:
# {"id":"sourceFile","fileName":"B.java"}
    2:5:void <init>():42:42 -> <init>
    6:6:void com.ex.A.<init>():42:42 -> <init>
      # {"id":"com.android.tools.r8.residualsignature","signature":"(I)V"}
    1:3:void bar():47:47 -> a
    4:11:void bar():48:48 -> a
    1:8:void com.ex.A.bar():52:52 -> b
    1:8:void com.ex.A.baz():57:57 -> c
    1:8:void com.ex.A.foo():47:47 -> d
`,
			want: []want{
				{Method{"a", "a", "()V", "SourceFile"}, Result{Name: "com.ex.B.bar", Class: "com.ex.B", Method: "bar", Signature: "()V", Source: "B.java", Status: Mapped}},
				{Method{"a", "b", "()V", "SourceFile"}, Result{Name: "com.ex.A.bar", Class: "com.ex.A", Method: "bar", Signature: "()V", Source: "A.java", Status: Mapped}},
				{Method{"a", "c", "()V", "SourceFile"}, Result{Name: "com.ex.A.baz", Class: "com.ex.A", Method: "baz", Signature: "()V", Source: "A.java", Status: Mapped}},
				{Method{"a", "d", "()V", "SourceFile"}, Result{Name: "com.ex.A.foo", Class: "com.ex.A", Method: "foo", Signature: "()V", Source: "A.java", Status: Mapped}},
				{Method{"a", "<init>", "()V", "SourceFile"}, Result{Name: "com.ex.B.<init>", Class: "com.ex.B", Method: "<init>", Signature: "()V", Source: "B.java", Status: Mapped}},
				{Method{"a", "<init>", "(I)V", "SourceFile"}, Result{Name: "com.ex.A.<init>", Class: "com.ex.A", Method: "<init>", Signature: "()V", Source: "A.java", Status: Mapped}},
			},
		},
		{
			name: "horizontal class merging: truly ambiguous",
			text: `com.ex.A -> a:
# {"id":"sourceFile","fileName":"A.java"}
    int $r8$classId -> a
      # {"id":"com.android.tools.r8.synthesized"}
    1:1:void <init>(int):0:0 -> <init>
      # {"id":"com.android.tools.r8.synthesized"}
    1:1:void com.ex.B.baz():51:51 -> a
    2:2:void baz():51:51 -> a
    1:8:void com.ex.B.bar():46:46 -> b
    1:8:void foo():46:46 -> c
com.ex.I -> b:
    void baz() -> a
`,
			want: []want{
				{Method{"a", "a", "()V", ""}, Result{Name: "com.ex.A.baz | com.ex.B.baz", Class: "com.ex.A", Method: "baz", Signature: "()V", Source: "A.java", Status: Ambiguous}},
				{Method{"a", "b", "()V", "SourceFile"}, Result{Name: "com.ex.B.bar", Class: "com.ex.B", Method: "bar", Signature: "()V", Status: Mapped}},
				{Method{"a", "c", "()V", ""}, Result{Name: "com.ex.A.foo", Class: "com.ex.A", Method: "foo", Signature: "()V", Source: "A.java", Status: Mapped}},
				{Method{"a", "<init>", "(I)V", ""}, Result{Name: "com.ex.A.<init>", Class: "com.ex.A", Method: "<init>", Signature: "(I)V", Source: "A.java", Status: Mapped, Synthesized: true}},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var meths []Method
			for _, w := range tc.want {
				meths = append(meths, w.meth)
			}
			m := readString(t, tc.text, meths...)
			if len(m.Warnings) > 0 {
				t.Errorf("warnings: %q", m.Warnings)
			}
			for _, w := range tc.want {
				if got := m.Resolve(w.meth); got != w.res {
					t.Errorf("Resolve(%+v)\n got %+v\nwant %+v", w.meth, got, w.res)
				}
			}
		})
	}
}
