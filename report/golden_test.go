package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stacks"
)

// oldTrace has two threads, an orphan (Looper.loop, running when tracing
// began), recursion (fib calling itself twice), an overload (fib(I)I and
// fib(J)J), a long Kotlin name, and frames open at the end on the worker.
// Records are: thread action method thread-CPU-µs wall-µs.
//
// Exclusive times per stack, wall/cpu µs, worked out by hand:
//
//	main:   loop (orphan) 10/0; main 5+10+10=25/5+5+5=15;
//	        main;fib 5+5+10=20/5+2+5=12; main;fib;fib 5+10=15/2+6=8;
//	        main;fib;fib;fib 5/2; main;fib;pay 15/8; main;fib(J) 10/5
//	        → 100/50
//	worker: run 26+22=48/4+2=6; run;fib 30/6; run;pay (open) 2+3=5/2+0=2;
//	        run;pay;fib 1/1 → 84/15
const oldTrace = `version 3
clock dual
vm art
thread 1 main
thread 2 worker
method 0x4 com.example.App main ()V App.java
method 0x8 com.example.App fib (I)I App.java
method 0xc com.example.App fib (J)J App.java
method 0x10 android.os.Looper loop ()V Looper.java
method 0x14 com.example.Worker run ()V Worker.java
method 0x18 com.example.feature.checkout.internal.presentation.CheckoutPaymentMethodSelectionViewModel onPaymentMethodSelected (Lcom/example/Pay;)V CheckoutPaymentMethodSelectionViewModel.kt
1 exit 0x10 0 10
1 enter 0x4 0 20
1 enter 0x8 5 25
2 enter 0x14 0 26
1 enter 0x8 10 30
1 enter 0x8 12 35
1 exit 0x8 14 40
1 exit 0x8 20 50
2 enter 0x8 4 52
1 enter 0x18 22 55
1 exit 0x18 30 70
1 exit 0x8 35 80
2 exit 0x8 10 82
1 enter 0xc 40 90
1 exit 0xc 45 100
2 enter 0x18 12 104
2 enter 0x8 14 106
2 exit 0x8 15 107
1 exit 0x4 50 110
`

// newTrace is the same app after a change: fib no longer recurses, the
// payment call got slower, fib(J)J, Looper.loop and the worker are gone
// and cache() is new.
//
//	main 10+10+15=35/10+5+10=25; main;fib 20/20; main;fib;pay 60/40;
//	main;cache 5/5 → 120/90
const newTrace = `version 3
clock dual
vm art
thread 1 main
method 0x4 com.example.App main ()V App.java
method 0x8 com.example.App fib (I)I App.java
method 0x18 com.example.feature.checkout.internal.presentation.CheckoutPaymentMethodSelectionViewModel onPaymentMethodSelected (Lcom/example/Pay;)V CheckoutPaymentMethodSelectionViewModel.kt
method 0x1c com.example.App cache ()V App.java
1 enter 0x4 0 0
1 enter 0x8 10 10
1 enter 0x18 20 20
1 exit 0x18 60 80
1 exit 0x8 70 90
1 enter 0x1c 75 100
1 exit 0x1c 80 105
1 exit 0x4 90 120
`

// load writes the text-form trace as a regular file and aggregates it
// through the real parser and converter.
func load(t testing.TB, name, text string) *Profile {
	t.Helper()
	tr, err := tracegen.ParseText(text)
	if err != nil {
		t.Fatal(err)
	}
	return loadBytes(t, name, tr.Regular())
}

func loadBytes(t testing.TB, name string, data []byte) *Profile {
	t.Helper()
	p, err := NewProfile(aggregate(t, name, data))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// aggregate runs a trace through the parser, the converter and stacks.
func aggregate(t testing.TB, name string, data []byte) *stacks.Tree {
	t.Helper()
	f, err := parser.NewFile(name, bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := stacks.New()
	if _, err := convert.Run(f, convert.Options{}, convert.Aggregate(a)); err != nil {
		t.Fatal(err)
	}
	return a.Tree()
}

const (
	fibI = "com.example.App.fib"
	pay  = "com.example.feature.checkout.internal.presentation.CheckoutPaymentMethodSelectionViewModel.onPaymentMethodSelected"
)

func TestTopGeneratedByHand(t *testing.T) {
	r, err := load(t, "old.trace", oldTrace).Top(TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	if got := fmt.Sprint(r.Clocks, tb.Total, tb.Threads, tb.Methods); got != "[wall cpu] [184000 65000] 2 6" {
		t.Errorf("clocks, total, threads, methods = %s", got)
	}
	// fib(I)I incl: main;fib and above 55/30, run;fib 30/6, run;pay;fib 1/1.
	// pay incl: main;fib;pay 15/8 + run;pay and above 6/3.
	checkRows(t, tb.Rows, []string{
		fibI + " excl=[71000 29000] incl=[86000 37000] calls=5 rec=2 mean=[14200 5800]",
		"com.example.Worker.run excl=[48000 6000] incl=[84000 15000] calls=1 rec=0 mean=[48000 6000]",
		"com.example.App.main excl=[25000 15000] incl=[90000 50000] calls=1 rec=0 mean=[25000 15000]",
		pay + " excl=[20000 10000] incl=[21000 11000] calls=2 rec=0 mean=[10000 5000]",
		"android.os.Looper.loop excl=[10000 0] incl=[10000 0] calls=1 rec=0 mean=[10000 0]",
		fibI + " excl=[10000 5000] incl=[10000 5000] calls=1 rec=0 mean=[10000 5000]",
	})
	if !tb.Rows[0].Overloaded || tb.Rows[0].Signature != "(I)I" || tb.Rows[1].Overloaded {
		t.Errorf("overload flags: %+v %+v", tb.Rows[0], tb.Rows[1])
	}
}

func TestCallsGeneratedByHand(t *testing.T) {
	r := load(t, "old.trace", oldTrace).Calls(CallsOptions{Pattern: regexp.MustCompile(`fib|onPayment`)})
	if r.Matched != 3 {
		t.Fatalf("matched %d methods, want 3", r.Matched)
	}
	var got []string
	for _, m := range r.Methods[:2] {
		got = append(got, fmt.Sprintf("%s%s incl=%v self=%v", m.Method, m.Signature, m.Incl, m.Self))
		for _, x := range m.Parents {
			got = append(got, fmt.Sprintf("parent %s %v %d", x.Method, x.Time, x.Calls))
		}
		for _, x := range m.Children {
			got = append(got, fmt.Sprintf("child %s %v %d", x.Method, x.Time, x.Calls))
		}
	}
	want := []string{
		fibI + "(I)I incl=[86000 37000] self=[71000 29000]",
		"parent com.example.App.main [55000 30000] 1",
		"parent com.example.Worker.run [30000 6000] 1",
		"parent " + pay + " [1000 1000] 1",
		"parent " + fibI + " [0 0] 2",
		"child " + pay + " [15000 8000] 1",
		"child " + fibI + " [0 0] 2",
		pay + "(Lcom/example/Pay;)V incl=[21000 11000] self=[20000 10000]",
		"parent " + fibI + " [15000 8000] 1",
		"parent com.example.Worker.run [6000 3000] 1",
		"child " + fibI + " [1000 1000] 1",
	}
	if g, w := fmt.Sprintf("%q", got), fmt.Sprintf("%q", want); g != w {
		t.Errorf("got\n%s\nwant\n%s", g, w)
	}
	checkSharesAddUp(t, r)
}

func TestDiffGeneratedByHand(t *testing.T) {
	th, err := ParseThreshold("10us")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Diff(load(t, "old.trace", oldTrace), load(t, "new.trace", newTrace), DiffOptions{Threshold: th})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.Methods, r.OldOnly, r.NewOnly, r.Hidden, r.Total[0].Old, r.Total[0].New); got != "7 3 1 1 184000 120000" {
		t.Errorf("methods, old-only, new-only, hidden, total = %s", got)
	}
	var got []string
	for _, row := range r.Rows {
		got = append(got, fmt.Sprintf("%s %s excl %.0f→%.0f incl %.0f→%.0f calls %.0f→%.0f", row.Method, row.Status,
			row.Excl[0].Old, row.Excl[0].New, row.Incl[0].Old, row.Incl[0].New, row.Calls.Old, row.Calls.New))
	}
	// By |Δ exclusive wall|; Looper.loop and fib(J)J tie on both changes
	// and go by name; cache (+5 µs on both) is under the threshold.
	want := []string{
		fibI + " both excl 71000→20000 incl 86000→80000 calls 5→1",
		"com.example.Worker.run old-only excl 48000→0 incl 84000→0 calls 1→0",
		pay + " both excl 20000→60000 incl 21000→60000 calls 2→1",
		"com.example.App.main both excl 25000→35000 incl 90000→120000 calls 1→1",
		"android.os.Looper.loop old-only excl 10000→0 incl 10000→0 calls 1→0",
		fibI + " old-only excl 10000→0 incl 10000→0 calls 1→0",
	}
	if g, w := fmt.Sprintf("%q", got), fmt.Sprintf("%q", want); g != w {
		t.Errorf("got\n%s\nwant\n%s", g, w)
	}
	if p := r.Rows[0].Excl[0].Pct; p == nil || fmt.Sprintf("%.4f", *p) != "-71.8310" {
		t.Errorf("fib's exclusive change = %v, want -71.8310%% (-51/71)", p)
	}
	if r.Rows[1].Excl[0].Pct == nil || *r.Rows[1].Excl[0].Pct != -100 {
		t.Errorf("a method gone from the new trace changed by %v, want -100%%", r.Rows[1].Excl[0].Pct)
	}
}

func TestDiffThresholdPercent(t *testing.T) {
	th, err := ParseThreshold("5.5%") // of 184 µs: 10.12 µs hides loop, fib(J)J and cache
	if err != nil {
		t.Fatal(err)
	}
	r, err := Diff(load(t, "old.trace", oldTrace), load(t, "new.trace", newTrace), DiffOptions{Threshold: th, Sort: SortName})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range r.Rows {
		got = append(got, row.Method)
	}
	want := []string{"com.example.App.fib", "com.example.App.main", "com.example.Worker.run", pay}
	if fmt.Sprint(got) != fmt.Sprint(want) || r.Hidden != 3 {
		t.Errorf("rows %q (hidden %d), want %q (hidden 3)", got, r.Hidden, want)
	}
}

func TestParseThreshold(t *testing.T) {
	for in, want := range map[string]Threshold{
		"0": {}, "": {}, "500us": {Nanos: 500_000}, "500µs": {Nanos: 500_000}, "1.5ms": {Nanos: 1_500_000},
		"2s": {Nanos: 2e9}, "0.5%": {Percent: 0.5},
	} {
		if got, err := ParseThreshold(in); err != nil || got != want {
			t.Errorf("ParseThreshold(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"5", "-1ms", "101%", "x%", "ms"} {
		if _, err := ParseThreshold(in); err == nil {
			t.Errorf("ParseThreshold(%q) gave no error", in)
		}
	}
}

func TestDiffNoCommonClock(t *testing.T) {
	wall := load(t, "wall.trace", "version 3\nclock wall\nthread 1 main\nmethod 0x4 A a ()V A.java\n1 enter 0x4 0 0\n1 exit 0x4 0 5\n")
	cpu := load(t, "cpu.trace", "version 3\nclock thread-cpu\nthread 1 main\nmethod 0x4 A a ()V A.java\n1 enter 0x4 0 0\n1 exit 0x4 5 0\n")
	_, err := Diff(wall, cpu, DiffOptions{})
	if err == nil || err.Error() != "wall.trace has the wall clock and cpu.trace the cpu clock: no clock in common to compare" {
		t.Errorf("err = %v", err)
	}
}

// golden compares got with testdata/golden/report/name, or rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", "report", name), got)
}

func TestLimitsAndOrders(t *testing.T) {
	old, cur := load(t, "old.trace", oldTrace), load(t, "new.trace", newTrace)
	names := func(rows []TopRow) (s []string) {
		for _, r := range rows {
			s = append(s, r.Method+r.Signature)
		}
		return s
	}
	r, err := old.Top(TopOptions{Sort: SortCalls, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(r.Tables[0].Rows), r.Tables[0].Methods); got != "[com.example.App.fib(I)I "+pay+"(Lcom/example/Pay;)V] 6" {
		t.Errorf("by calls, 2 rows: %s", got)
	}
	r, err = old.Top(TopOptions{Sort: SortIncl, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(r.Tables[0].Rows)); got != "[com.example.App.main()V com.example.App.fib(I)I]" {
		t.Errorf("by inclusive, 2 rows: %s", got)
	}
	if _, err := old.Top(TopOptions{Sort: "size"}); err == nil {
		t.Error("no error for an unknown sort order")
	}
	c := old.Calls(CallsOptions{Pattern: regexp.MustCompile(`App`), Limit: 1})
	if c.Matched != 3 || len(c.Methods) != 1 || c.Methods[0].Method != "com.example.App.main" {
		t.Errorf("calls limited to 1 of 3: matched %d, methods %+v", c.Matched, c.Methods)
	}
	d, err := Diff(old, cur, DiffOptions{Sort: SortCalls, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 1 || d.Rows[0].Signature != "(I)I" || d.Hidden != 0 {
		t.Errorf("diff by calls, 1 row: %+v", d.Rows)
	}
}

func TestCallsNoMatch(t *testing.T) {
	r := load(t, "old.trace", oldTrace).Calls(CallsOptions{Pattern: regexp.MustCompile(`^nothing$`)})
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"methods": []`)) || r.Matched != 0 {
		t.Errorf("no match gave %s", b.Bytes())
	}
}
