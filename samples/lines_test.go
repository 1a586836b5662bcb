package samples

import "testing"

func TestParseFrame(t *testing.T) {
	for in, want := range map[string]Frame{
		"java.lang.Long.parseLong(Long.java:450)":             {Name: "java.lang.Long.parseLong", Class: "java.lang.Long", Method: "parseLong", File: "Long.java", Line: 450, HasLine: true},
		"a.B.c(B.java:0)":                                     {Name: "a.B.c", Class: "a.B", Method: "c", File: "B.java", HasLine: true},
		"a.B.c(B.java:-5)":                                    {Name: "a.B.c", Class: "a.B", Method: "c", File: "B.java"},
		"a.B.c(B.java)":                                       {Name: "a.B.c", Class: "a.B", Method: "c", File: "B.java"},
		"a.B.c(B.java:Compiled method)":                       {Name: "a.B.c", Class: "a.B", Method: "c", File: "B.java"},
		"a.B.c(<Unknown Source>:Native method)":               {Name: "a.B.c", Class: "a.B", Method: "c", Native: true},
		"a.B.c(odd:name.java:12)":                             {Name: "a.B.c", Class: "a.B", Method: "c", File: "odd:name.java", Line: 12, HasLine: true},
		"a.B.c(B.java:abc)":                                   {Name: "a.B.c", Class: "a.B", Method: "c", File: "B.java:abc"},
		"java/lang/Object.wait(Object.java:Native method)":    {Name: "java.lang.Object.wait", Class: "java.lang.Object", Method: "wait", File: "Object.java", Native: true},
		"main(Main.java:3)":                                   {Name: "main", Method: "main", File: "Main.java", Line: 3, HasLine: true},
		"Foo$$Lambda$1.12345.run(Unknown Source)":             {Name: "Foo$$Lambda$1.12345.run", Class: "Foo$$Lambda$1.12345", Method: "run"},
		"int[].clone(<Unknown Source>:Unknown line)":          {Name: "int[].clone", Class: "int[]", Method: "clone"},
		"Unknown_class.<Unknown Method>(<Unknown Source>:-1)": {Name: "Unknown_class.<Unknown Method>", Class: "Unknown_class", Method: "<Unknown Method>"},
	} {
		got, err := parseFrame(in)
		if err != nil || got != want {
			t.Errorf("parseFrame(%q) = %+v, %v\nwant %+v", in, got, err, want)
		}
	}
}

func TestPrettyFrame(t *testing.T) {
	for in, want := range map[string]Frame{
		"void com.foo.Bar.baz(int, java.lang.String)":  {Name: "com.foo.Bar.baz", Class: "com.foo.Bar", Method: "baz", Signature: "(ILjava/lang/String;)V"},
		"java.lang.Object[][] a.B.c(boolean[], char)":  {Name: "a.B.c", Class: "a.B", Method: "c", Signature: "([ZC)[[Ljava/lang/Object;"},
		"long Main.<init>(byte, short, float, double)": {Name: "Main.<init>", Class: "Main", Method: "<init>", Signature: "(BSFD)J"},
		"void a.B$1.run()": {Name: "a.B$1.run", Class: "a.B$1", Method: "run", Signature: "()V"},
		"null":             {Name: "null", Method: "null"},
		"<runtime method>.<runtime internal method>": {Name: "<runtime method>.<runtime internal method>", Class: "<runtime method>", Method: "<runtime internal method>"},
		"void a.B.c(void)":                           {Name: "void a.B.c(void)", Class: "void a.B", Method: "c(void)"},
		"void a.B.c(int,int)":                        {Name: "void a.B.c(int,int)", Class: "void a.B", Method: "c(int,int)"},
		"void a.B.c(int[)":                           {Name: "void a.B.c(int[)", Class: "void a.B", Method: "c(int[)"},
		"void a b.c()":                               {Name: "void a b.c()", Class: "void a b", Method: "c()"},
		"void (int)":                                 {Name: "void (int)", Method: "void (int)"},
	} {
		if got := prettyFrame(in); got != want {
			t.Errorf("prettyFrame(%q) = %+v\nwant %+v", in, got, want)
		}
	}
}
