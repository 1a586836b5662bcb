package tracegen

import "strings"

// MinifiedApp is a readable trace of a small feed screen and the plan of a
// minified build of it, made for deobfuscation round trips: [Obfuscate]
// of the two gives a trace whose R8 map restores this one exactly. vm is
// "art" or "dalvik" (method ids and line style); build 0 and 1 are two
// builds of the app, with different timings, a different map id, other
// obfuscated package names and method names a and b swapped, as R8 renames
// between builds.
//
// The plan covers every situation of docs/formats.md §19:
//
//   - overloads that share the renamed name a and differ only in their
//     descriptor (FeedAdapter.bind(Item), bind(Item, int), load(String),
//     load(int));
//   - an inline chain whose inlinee (Validator.check(Item), with the same
//     descriptor as bind(Item)) carries the renamed name too, with a
//     rewriteFrame metadata line inside the chain;
//   - a moved method: Formatter.format(long) lives in FeedAdapter;
//   - a residual signature that differs from the mapped original:
//     render(Item, int) lost its unused int;
//   - a method line without a range (getItemCount);
//   - an identity class line (MainActivity) with an identity method line,
//     a renamed method and a kept-name member (onResume, not listed);
//   - kept-name members of renamed classes (the lambda's run, and
//     FeedAdapter.onViewRecycled(Holder), whose descriptor the map names
//     back);
//   - an inner class (FeedAdapter$Holder -> a.b.c$a), a synthesized lambda
//     class (FeedAdapter$$ExternalSyntheticLambda0) with a synthesized
//     <init>, a synthesized method (lambda$bind$0), and FeedAdapter$1,
//     absent from the map, traced as a.b.c$1 with FeedAdapter's source
//     column and restored as ORIG(OUTER)$1 with OUTER's source file;
//   - sources: sourceFile metadata under r8-map-id-… (FeedAdapter,
//     Formatter, Holder, the lambda) and under SourceFile (Item); Util has
//     SourceFile and no metadata, so it has no source; MainActivity keeps
//     its own; the framework classes are not in the map.
func MinifiedApp(vm string, build int) (*Trace, *Plan) {
	return minifiedTrace(vm, build), minifiedPlan(build)
}

const (
	feedPkg   = "com.example.feed."
	adapter   = feedPkg + "FeedAdapter"
	item      = "L" + "com/example/feed/Item;"
	adapterT  = "L" + "com/example/feed/FeedAdapter;"
	activity  = "com.example.MainActivity"
	lambda    = adapter + "$$ExternalSyntheticLambda0"
	holder    = adapter + "$Holder"
	anonymous = adapter + "$1"
)

func minifiedPlan(build int) *Plan {
	pkg, id := "a.b.", "3f1c0a5e9b7d2c4f6a8e0b1d3c5f7a9e2b4d6c8f0a1e3b5d7c9f2a4e6b8d0c1f"
	swap := func(s string) string { return s }
	if build == 1 {
		pkg, id = "x.y.", "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d"
		swap = func(s string) string {
			switch s {
			case "a":
				return "b"
			case "b":
				return "a"
			}
			return s
		}
	}
	return &Plan{MapID: id, Classes: []ClassPlan{
		{Orig: adapter, Obf: pkg + "c", File: "FeedAdapter.kt", Source: SourceMapID,
			Fields: []string{"java.util.List items -> a"},
			Methods: []MethodPlan{
				{Name: "<init>", Signature: "(Ljava/util/List;)V"},
				{Name: "bind", Signature: "(" + item + ")V", Obf: swap("a"),
					Inlined: []Inlinee{{Owner: feedPkg + "Validator", Name: "check", Signature: "(" + item + ")V", RewriteFrame: true}}},
				{Name: "bind", Signature: "(" + item + "I)V", Obf: swap("a")},
				{Name: "load", Signature: "(Ljava/lang/String;)V", Obf: swap("a")},
				{Name: "load", Signature: "(I)Ljava/util/List;", Obf: swap("a"),
					Inlined: []Inlinee{
						{Owner: feedPkg + "Item", Name: "getTitle", Signature: "()Ljava/lang/String;"},
						{Name: "bind", Signature: "(" + item + ")V"},
					}},
				{Name: "getItemCount", Signature: "()I", Obf: swap("b"), NoLines: true},
				{Owner: feedPkg + "Formatter", Name: "format", Signature: "(J)Ljava/lang/String;", Obf: "c"},
				{Name: "render", Signature: "(" + item + "I)V", Obf: "d", Residual: "(L" + strings.ReplaceAll(pkg, ".", "/") + "d;)V"},
				{Name: "lambda$bind$0", Signature: "(" + item + ")V", Obf: "e", Synthesized: true},
			}},
		{Orig: feedPkg + "Item", Obf: pkg + "d", File: "Item.kt", Source: SourceFileName,
			Methods: []MethodPlan{{Name: "getTitle", Signature: "()Ljava/lang/String;", Obf: swap("a")}}},
		{Orig: feedPkg + "Formatter", Obf: pkg + "e", File: "Formatter.kt", Source: SourceMapID,
			Methods: []MethodPlan{{Name: "pad", Signature: "(Ljava/lang/String;)Ljava/lang/String;", Obf: swap("a")}}},
		{Orig: holder, Obf: pkg + "c$a", File: "FeedAdapter.kt", Source: SourceMapID,
			Methods: []MethodPlan{
				{Name: "<init>", Signature: "(" + adapterT + ")V"},
				{Name: "update", Signature: "(" + item + ")V", Obf: swap("a")},
			}},
		{Orig: lambda, Obf: pkg + "f", File: "R8$$SyntheticClass", Source: SourceMapID, Synthesized: true,
			Methods: []MethodPlan{{Name: "<init>", Signature: "(" + adapterT + ")V", Synthesized: true}}},
		{Orig: feedPkg + "Util", Obf: pkg + "g", Source: SourceFileName,
			Methods: []MethodPlan{{Name: "clamp", Signature: "(III)I", Obf: swap("a")}}},
		{Orig: activity, Obf: activity, File: "MainActivity.kt", Source: SourceKept,
			Methods: []MethodPlan{
				{Name: "onCreate", Signature: "(Landroid/os/Bundle;)V"},
				{Name: "setup", Signature: "(" + adapterT + ")V", Obf: swap("a")},
			}},
	}}
}

// minifiedTrace lays out the app's calls on the main thread and a worker.
func minifiedTrace(vm string, build int) *Trace {
	b := NewBuilder(Trace{Version: 3, Clock: "dual", VM: vm, Start: 1_370_000_000_000_000,
		Options: []Option{{Key: "pid", Value: "4242"}}})
	line := 0
	m := func(class, name, sig, source string) uint32 {
		line += 7
		return b.MethodLine(class, name, sig, source, line)
	}
	var (
		loop        = m("android.os.Looper", "loop", "()V", "Looper.java")
		dispatch    = m("android.os.Handler", "dispatchMessage", "(Landroid/os/Message;)V", "Handler.java")
		onCreate    = m(activity, "onCreate", "(Landroid/os/Bundle;)V", "MainActivity.kt")
		setup       = m(activity, "setup", "("+adapterT+")V", "MainActivity.kt")
		onResume    = m(activity, "onResume", "()V", "MainActivity.kt")
		newAdapter  = m(adapter, "<init>", "(Ljava/util/List;)V", "FeedAdapter.kt")
		loadS       = m(adapter, "load", "(Ljava/lang/String;)V", "FeedAdapter.kt")
		loadI       = m(adapter, "load", "(I)Ljava/util/List;", "FeedAdapter.kt")
		size        = m("java.util.ArrayList", "size", "()I", "ArrayList.java")
		bind1       = m(adapter, "bind", "("+item+")V", "FeedAdapter.kt")
		bind2       = m(adapter, "bind", "("+item+"I)V", "FeedAdapter.kt")
		title       = m(feedPkg+"Item", "getTitle", "()Ljava/lang/String;", "Item.kt")
		format      = m(feedPkg+"Formatter", "format", "(J)Ljava/lang/String;", "Formatter.kt")
		pad         = m(feedPkg+"Formatter", "pad", "(Ljava/lang/String;)Ljava/lang/String;", "Formatter.kt")
		newHolder   = m(holder, "<init>", "("+adapterT+")V", "FeedAdapter.kt")
		update      = m(holder, "update", "("+item+")V", "FeedAdapter.kt")
		clamp       = m(feedPkg+"Util", "clamp", "(III)I", "")
		render      = m(adapter, "render", "("+item+"I)V", "FeedAdapter.kt")
		count       = m(adapter, "getItemCount", "()I", "FeedAdapter.kt")
		recycled    = m(adapter, "onViewRecycled", "(L"+strings.ReplaceAll(holder, ".", "/")+";)V", "FeedAdapter.kt")
		newLambda   = m(lambda, "<init>", "("+adapterT+")V", "R8$$SyntheticClass")
		runLambda   = m(lambda, "run", "()V", "R8$$SyntheticClass")
		lambdaBody  = m(adapter, "lambda$bind$0", "("+item+")V", "FeedAdapter.kt")
		runAnon     = m(anonymous, "run", "()V", "FeedAdapter.kt")
		postHandler = m("android.os.Handler", "post", "(Ljava/lang/Runnable;)Z", "Handler.java")
	)
	us := func(v uint32) uint32 { return v + uint32(build)*v/3 } // build 1 is slower
	main := b.Thread(1, "main")
	worker := b.Thread(2, "worker")
	main.Call(loop, us(40), us(10), func() {
		main.Call(dispatch, us(12), us(10), func() {
			main.Call(onCreate, us(30), us(25), func() {
				main.Call(setup, us(8), us(8), func() {
					main.Call(newAdapter, us(20), us(15), nil)
					main.Call(loadS, us(15), us(10), func() { main.Call(size, us(2), us(2), nil) })
					main.Call(loadI, us(50), us(20), nil)
				})
				main.Call(newLambda, us(3), us(3), nil)
				main.Call(postHandler, us(5), us(5), nil)
			})
			for i := range uint32(3) {
				main.Call(bind1, us(10+i), us(9), func() {
					main.Call(title, us(4), us(4), nil)
					main.Call(format, us(6), us(5), func() { main.Call(pad, us(3), us(3), nil) })
				})
				main.Call(bind2, us(9), us(7), func() {
					main.Call(newHolder, us(5), us(5), nil)
					main.Call(update, us(7), us(6), func() { main.Call(clamp, us(1), us(1), nil) })
				})
				main.Call(render, us(21), us(18), nil)
				main.Call(count, us(1), us(1), nil)
			}
			main.Call(recycled, us(4), us(3), nil)
			main.Call(onResume, us(11), us(10), nil)
		})
	})
	worker.Until(100)
	worker.Call(runLambda, us(6), us(5), func() {
		worker.Call(lambdaBody, us(30), us(22), func() { worker.Call(title, us(4), us(4), nil) })
	})
	worker.Call(runAnon, us(9), us(7), func() { worker.Call(clamp, us(2), us(2), nil) })
	if build == 1 {
		worker.Call(loadI, us(40), us(30), nil)
	}
	return b.Trace()
}
