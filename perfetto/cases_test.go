package perfetto_test

import (
	"fmt"
	"strings"
)

// Generated traces in tracegen's text form (records: thread action method
// cpu wall, or one time for one-clock layouts), each covering cases of the
// converter's stack policy.

// policyDual is an ART dual-clock trace with every repair the policy makes:
//
//	main:   an orphan exit (load), an unwind (fetch), a call with wall time
//	        but no CPU time (sleep), and two frames open at the end;
//	worker: a zero-length call, an exit of a caller implying its callee's
//	        exit (fetch ends sleep), a dropped exit, a bad action, an
//	        unknown method, a CPU time going backwards, and an orphan exit
//	        (onCreate) that encloses everything the thread did;
//	9:      a thread missing from the thread table.
//
// The trace ends at wall 410 µs, main's last record.
const policyDual = `
version 3
clock dual
vm art
start 81734201455
option pid=4321
thread 4321 main
thread 4400 worker
method 0x0 com.example.App onCreate (Landroid/os/Bundle;)V App.java
method 0x4 com.example.App load ()V App.java
method 0x8 com.example.Net fetch (Ljava/lang/String;)[B Net.java
method 0xc java.lang.Thread sleep (J)V Thread.java
method 0x10 com.example.Util helper ()V ""
4321 exit 0x4 10 100
4321 enter 0x0 10 110
4321 enter 0x8 12 120
4321 unwind 0x8 20 150
4321 enter 0xc 20 160
4321 exit 0xc 20 400
4321 enter 0x4 21 410
4400 enter 0x10 0 200
4400 enter 0x8 0 200
4400 enter 0xc 1 210
4400 exit 0x8 5 300
4400 exit 0x10 5 300
4400 enter 0x4 6 305
4400 exit 0xc 6 306
4400 bad 0x0 6 307
4400 enter 0x40 7 310
4400 exit 0x40 7 310
4400 exit 0x4 4 320
4400 exit 0x0 8 330
9 enter 0x8 0 340
9 exit 0x8 3 350
`

// wallOnly is a v2 ART trace with the wall clock only: no thread times.
const wallOnly = `
version 2
clock wall
vm art
start 5000000
option pid=300
thread 300 main
thread 301 RenderThread
method 0x0 android.os.Looper loop ()V Looper.java
method 0x4 android.os.Handler dispatchMessage (Landroid/os/Message;)V Handler.java
method 0x8 android.view.Choreographer doFrame (J)V Choreographer.java
300 exit 0x0 50
300 enter 0x4 60
300 enter 0x8 61
300 exit 0x8 90
300 unwind 0x4 95
301 enter 0x8 70
301 exit 0x8 70
301 enter 0x4 80
`

// cpuOnlyDalvik is a v2 Dalvik trace with the thread-CPU clock only and an
// epoch start time, whose timeline is each thread's CPU time.
const cpuOnlyDalvik = `
version 2
clock thread-cpu
vm dalvik
start 1374703971214759
thread 1 main
thread 11 AsyncTask #1
method 0x6287d960 android.app.Activity performCreate (Landroid/os/Bundle;)V Activity.java 5104
method 0x6287d998 com.example.Main onCreate (Landroid/os/Bundle;)V Main.java 20
method 0x6287d9d0 java.lang.Object wait ()V Object.java -1
1 enter 0x6287d960 0
1 enter 0x6287d998 3
1 enter 0x6287d9d0 5
1 exit 0x6287d9d0 5
1 exit 0x6287d998 9
1 exit 0x6287d960 12
11 exit 0x6287d998 4
11 enter 0x6287d9d0 6
`

// dualDalvik is a v3 Dalvik trace with both clocks and line numbers.
const dualDalvik = `
version 3
clock dual
vm dalvik
start 1374703971214759
thread 1 main
method 0x6287d960 android.app.Activity performCreate (Landroid/os/Bundle;)V Activity.java 5104
method 0x6287d998 com.example.Main onCreate (Landroid/os/Bundle;)V Main.java 20
1 enter 0x6287d960 0 0
1 enter 0x6287d998 2 3
1 exit 0x6287d998 4 8
1 exit 0x6287d960 6 10
`

// wrapping is a dual trace whose 32-bit wall counter wraps around.
const wrapping = `
version 3
clock dual
vm art
start 1000
option pid=42
thread 42 main
method 0x0 a.B run ()V B.java
method 0x4 a.B step ()V B.java
42 enter 0x0 0 4294967000
42 enter 0x4 1 4294967200
42 exit 0x4 2 100
42 exit 0x0 3 200
`

// deepRecursion returns a dual trace whose main thread recurses past
// trace_processor's depth limit twice under the same frame at depth 511
// (to depth 519, then again to depth 514), then makes one shallow call; a
// second thread reaches exactly depth 511, which needs no folding.
func deepRecursion() string {
	var b strings.Builder
	b.WriteString(`version 3
clock dual
vm art
start 2000
option pid=7
thread 7 main
thread 8 worker
method 0x0 a.Rec recurse (I)V Rec.java
method 0x4 a.Rec leaf ()V Rec.java
`)
	wall, cpu := 0, 0
	rec := func(tid int, action string, m int) {
		wall++
		if wall%3 == 0 {
			cpu++
		}
		fmt.Fprintf(&b, "%d %s %#x %d %d\n", tid, action, m, cpu, wall)
	}
	for range 520 {
		rec(7, "enter", 0)
	}
	for range 8 {
		rec(7, "exit", 0)
	}
	for range 3 {
		rec(7, "enter", 0)
	}
	for range 515 {
		rec(7, "exit", 0)
	}
	rec(7, "enter", 4)
	rec(7, "exit", 4)
	for range 512 {
		rec(8, "enter", 0)
	}
	for range 512 {
		rec(8, "exit", 0)
	}
	return b.String()
}

// policyCases are the generated traces every structural test runs on.
var policyCases = []struct{ name, src string }{
	{"policy-dual", policyDual},
	{"wall-only", wallOnly},
	{"cpu-only-dalvik", cpuOnlyDalvik},
	{"dual-dalvik", dualDalvik},
	{"wrapping", wrapping},
	{"deep-recursion", deepRecursion()},
}
