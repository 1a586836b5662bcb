package samplegen

// Fixture is the small sampled profile the exporters' tests share: two
// threads, a recursive stack, one method at three lines, and cpu=times
// times that add up to 100 ms. Worked out by hand (samples; ms):
//
//	main:   main;parse 3/25; main;parse;parseLong 5/40 (parse at line 20);
//	        main;parse;parse 2/10 (recursion) → 10/75
//	worker: run 2/20; run;parse 1/5 → 3/25
//
// so over all threads: App.parse excl 6/40, incl 11/80 (the recursive
// stack counted once); Long.parseLong 5/40; Worker.run 2/20, incl 3/25;
// App.main incl 10/75; 13 samples in all.
func Fixture() *Hprof {
	fr := func(class, method, file string, line int) Frame {
		return Frame{Class: "com.example." + class, Method: method, File: file, Line: line}
	}
	appMain, parse20, parse21, parse30 := fr("App", "main", "App.java", 5), fr("App", "parse", "App.java", 20),
		fr("App", "parse", "App.java", 21), fr("App", "parse", "App.java", 30)
	parseLong := Frame{Class: "java.lang.Long", Method: "parseLong", File: "Long.java", Line: 10}
	run7, run8 := fr("Worker", "run", "Worker.java", 7), fr("Worker", "run", "Worker.java", 8)
	f := func(fs ...Frame) []Frame { return fs }
	return &Hprof{
		Date: "Sun Jan 13 05:57:25 2013",
		Threads: []Thread{
			{ID: 1, Obj: 100, Name: "main", Group: "main"},
			{ID: 2, Obj: 101, Name: "worker", Group: "main", End: true},
		},
		Traces: []Trace{
			{ID: 300001, Thread: 1, Count: 5, TimeMs: 40, Frames: f(parseLong, parse20, appMain)},
			{ID: 300002, Thread: 1, Count: 3, TimeMs: 25, Frames: f(parse21, appMain)},
			{ID: 300003, Thread: 2, Count: 2, TimeMs: 20, Frames: f(run7)},
			{ID: 300004, Thread: 2, Count: 1, TimeMs: 5, Frames: f(parse20, run8)},
			{ID: 300005, Thread: 1, Count: 2, TimeMs: 10, Frames: f(parse30, parse20, appMain)},
		},
	}
}
