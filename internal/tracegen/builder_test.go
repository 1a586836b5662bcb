package tracegen

import (
	"reflect"
	"slices"
	"testing"
)

func TestBuilderCallTree(t *testing.T) {
	b := NewBuilder(Trace{Version: 3, Clock: "dual", VM: "art"})
	run := b.Method("java.lang.Thread", "run", "()V", "Thread.java")
	foo := b.Method("a.B", "foo", "()V", "B.java")
	bar := b.Method("a.B", "bar", "(I)I", "B.java")
	if again := b.Method("a.B", "foo", "()V", "Other.java"); again != foo {
		t.Errorf("Method did not de-duplicate: %#x != %#x", again, foo)
	}
	if run != 0 || foo != 4 || bar != 8 {
		t.Errorf("ART ids = %#x %#x %#x, want 0 0x4 0x8 (index<<2)", run, foo, bar)
	}

	main := b.Thread(1, "main")
	main.Idle(100) // before the first event: wall only
	main.Advance(50, 50)
	main.Call(run, 10, 6, func() {
		main.Call(foo, 20, 10, nil)
		// A second thread starts at the latest wall time written so far
		// and its CPU clock reads 0 at its first event.
		w := b.Thread(2, "worker")
		w.Advance(0, 99)
		w.CallUnwind(bar, 4, 2, nil)
		main.Call(bar, 3, 1, nil)
	})
	got := b.Trace()
	want := []Record{
		{Thread: 1, Method: run, Action: Enter, CPU: 0, Wall: 150},
		{Thread: 1, Method: foo, Action: Enter, CPU: 3, Wall: 155},
		{Thread: 1, Method: foo, Action: Exit, CPU: 13, Wall: 175},
		{Thread: 2, Method: bar, Action: Enter, CPU: 0, Wall: 175},
		{Thread: 2, Method: bar, Action: Unwind, CPU: 2, Wall: 179},
		{Thread: 1, Method: bar, Action: Enter, CPU: 13, Wall: 175},
		{Thread: 1, Method: bar, Action: Exit, CPU: 14, Wall: 178},
		{Thread: 1, Method: run, Action: Exit, CPU: 17, Wall: 183},
	}
	if !reflect.DeepEqual(got.Records, want) {
		t.Errorf("records =\n%+v\nwant\n%+v", got.Records, want)
	}
	if want := []Thread{{1, "main"}, {2, "worker"}}; !reflect.DeepEqual(got.Threads, want) {
		t.Errorf("threads = %+v, want %+v", got.Threads, want)
	}
	if len(got.Methods) != 3 || got.Methods[1] != (Method{4, "a.B", "foo", "()V", "B.java", 0}) {
		t.Errorf("methods = %+v", got.Methods)
	}
}

func TestBuilderUnbalanced(t *testing.T) {
	b := NewBuilder(Trace{Version: 2, Clock: "wall", VM: "dalvik"})
	loop := b.MethodLine("android.os.Looper", "loop", "()V", "Looper.java", 120)
	next := b.Method("android.os.MessageQueue", "next", "()Landroid/os/Message;", "MessageQueue.java")
	if loop != 0x6287d960 || next != 0x6287d998 {
		t.Errorf("Dalvik ids = %#x %#x, want pointer-like 0x6287d960 0x6287d998", loop, next)
	}
	th := b.On(7) // not listed in *threads
	th.Exit(next) // orphan exit
	th.Enter(loop)
	th.Enter(next)
	th.Exit(loop) // mismatched: the stack keeps both frames
	if got := th.Stack(); !slices.Equal(got, []uint32{loop, next}) {
		t.Errorf("Stack() = %#x, want [loop next]", got)
	}
	th.Emit(BadAction, 0x1234)
	th.ExitAll()
	if got := th.Stack(); len(got) != 0 {
		t.Errorf("Stack() after ExitAll = %#x", got)
	}
	th.SetClocks(5, 1)
	th.Advance(^uint32(0), 0) // wall wraps to 0
	th.Until(3)
	th.Unwind(loop)
	tr := b.Trace()
	if len(tr.Threads) != 0 {
		t.Errorf("On listed a thread: %+v", tr.Threads)
	}
	var actions []Action
	var methods []uint32
	for _, r := range tr.Records {
		actions = append(actions, r.Action)
		methods = append(methods, r.Method)
	}
	wantA := []Action{Exit, Enter, Enter, Exit, BadAction, Exit, Exit, Unwind}
	wantM := []uint32{next, loop, next, loop, 0x1234, next, loop, loop}
	if !slices.Equal(actions, wantA) || !slices.Equal(methods, wantM) {
		t.Errorf("records = %v %#x, want %v %#x", actions, methods, wantA, wantM)
	}
	if last := tr.Records[len(tr.Records)-1]; last.CPU != 5 || last.Wall != 3 {
		t.Errorf("last record clocks = %d/%d, want 5/3", last.CPU, last.Wall)
	}
	if cpu, wall := th.Clocks(); cpu != 5 || wall != 3 || th.ID() != 7 {
		t.Errorf("Clocks() = %d, %d; ID() = %d", cpu, wall, th.ID())
	}
}

// TestBuilderBase checks that a base trace's tables come first and that new
// ids do not collide with its methods.
func TestBuilderBase(t *testing.T) {
	base := Trace{
		Version: 3, Clock: "dual", VM: "art",
		Methods: []Method{{ID: 0x40, Class: "a.A", Name: "x", Signature: "()V"}},
		Records: []Record{{Thread: 1, Method: 0x40, Wall: 500}},
	}
	b := NewBuilder(base)
	if id := b.Method("a.A", "x", "()V", ""); id != 0x40 {
		t.Errorf("existing method id = %#x, want 0x40", id)
	}
	if id := b.Method("a.A", "y", "()V", ""); id != 0x44 {
		t.Errorf("new method id = %#x, want 0x44", id)
	}
	b.Thread(2, "t").Enter(0x40)
	tr := b.Trace()
	if len(tr.Records) != 2 || tr.Records[1].Wall != 500 {
		t.Errorf("records = %+v, want the new thread to start at wall 500", tr.Records)
	}
	if len(base.Methods) != 1 || len(base.Records) != 1 {
		t.Error("NewBuilder modified its base")
	}
	b.On(2).Exit(0x40)
	if len(tr.Records) != 2 {
		t.Error("Trace() shares its records with the builder")
	}
}
