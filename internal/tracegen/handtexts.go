package tracegen

// Small traces in text form (ParseText) that tests of several packages
// work out by hand; each test's comment says what it computes from them.

// OffCPUText is a dual-clock trace (records: tid, action, method, thread
// CPU µs, wall µs) with off the CPU time on both threads: main calls sleep
// (10 ms of wall time, 1 ms of CPU) and spin (3 ms of wall time, 4 ms of
// CPU), and the worker sleeps 2 ms of wall time with 500 µs of CPU.
const OffCPUText = `version 3
clock dual
thread 1 main
thread 2 worker
method 0x4 a.App main ()V App.java
method 0x8 a.Io sleep ()V Io.java
method 0xc a.Calc spin ()V Calc.java
1 enter 0x4 0 0
1 enter 0x8 1000 1000
1 exit 0x8 2000 11000
1 enter 0xc 2000 11000
1 exit 0xc 6000 14000
1 exit 0x4 6500 15000
2 enter 0x8 0 15000
2 exit 0x8 500 17000
`

// FocusText is a dual-clock trace (records: tid, action, method, thread
// CPU µs, wall µs) with, on each thread, an orphan frame (its first record
// is an exit) and a frame still open at the end.
const FocusText = `version 3
clock dual
thread 1 main
thread 2 worker
method 0x4 a.A run ()V X.java
method 0x8 a.B run ()V X.java
method 0xc a.C run ()V X.java
1 exit 0x8 2 10
1 enter 0x4 3 12
1 enter 0xc 4 18
1 exit 0xc 6 22
1 exit 0x4 8 40
1 enter 0xc 9 45
2 exit 0x8 5 48
2 enter 0x4 6 50
`
