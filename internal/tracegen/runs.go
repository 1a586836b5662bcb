package tracegen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// An App is the call tree of one run of an app, per thread, with the self
// time of every call: the description [App.Run] turns into the traces of
// repeated runs, each with its own run-to-run noise, for regression-gate
// tests (`atrace2 diff --old … --new …`).
type App struct {
	Threads []AppThread
}

// AppThread is one thread of an [App]: its calls, outermost first, made
// from wall time Start (µs) on.
type AppThread struct {
	ID    uint32
	Name  string
	Start uint32
	Calls []Call
}

// Call is a method called Times times in a row (0 counts as once), each
// call taking Wall µs of wall time and CPU µs of thread-CPU time of its
// own (its exclusive time before noise) and making the Calls in order.
type Call struct {
	Class, Name, Signature, Source string
	Wall, CPU                      uint32
	Times                          int
	Calls                          []Call
}

// Label is the method's class and name, as [RunOptions.Stretch] names it.
func (c *Call) Label() string { return c.Class + "." + c.Name }

func (c *Call) times() int { return max(c.Times, 1) }

// Noise is the run-to-run variation of [App.Run], all of it multiplicative
// on a call's self time (wall and thread-CPU alike) but for the pauses:
//
//   - Run: one log-normal factor per run, σ of its log (CPU frequency,
//     thermal state);
//   - Method: one log-normal factor per method and run (JIT and cache
//     state), shared by all calls of the method in the run;
//   - Call: one log-normal factor per call;
//   - Pauses: that many off-CPU pauses per run (GC, scheduling), each
//     uniform in [PauseMax/4, PauseMax] µs of wall time and no CPU time,
//     added to the self time of calls drawn uniformly from all calls.
//
// The zero Noise gives every run the App's exact times.
type Noise struct {
	Run, Method, Call float64
	Pauses            int
	PauseMax          uint32
}

// RealisticNoise is the noise of repeated runs on one device: a few per
// cent per run and method, ten per cent per call, and a few ms of pauses.
var RealisticNoise = Noise{Run: 0.02, Method: 0.03, Call: 0.10, Pauses: 4, PauseMax: 2000}

// RunOptions choose a run of an [App].
type RunOptions struct {
	Noise Noise
	// Seed and the run's index seed the noise: the same pair gives the
	// same run, whatever Stretch says.
	Seed uint64
	// Stretch names methods ([Call.Label]) whose every call takes Factor
	// times its self time (after noise, pauses included, rounded to the
	// µs, on both clocks): the method's exclusive time grows by the factor
	// and each caller's inclusive time by exactly the time added below it.
	Stretch string
	Factor  float64
}

// Runs returns runs 0 to n-1 of a with options o (see [App.Run]).
func (a *App) Runs(o RunOptions, n int) []*Trace {
	ts := make([]*Trace, n)
	for i := range ts {
		ts[i] = a.Run(o, i)
	}
	return ts
}

// Run returns run i of a: a dual-clock ART v3 trace of a's calls, thread by
// thread, with o's noise drawn from a generator seeded by o.Seed and i. The
// noise is drawn in the same order whatever o.Stretch is, so a stretched
// run differs from the plain run with the same seed and index only by the
// stretch.
func (a *App) Run(o RunOptions, i int) *Trace {
	rng := rand.New(rand.NewPCG(o.Seed, uint64(i)))
	lognormal := func(sigma float64) float64 {
		if sigma == 0 {
			return 1
		}
		return math.Exp(sigma * rng.NormFloat64())
	}
	b := NewBuilder(Trace{Version: 3, Clock: "dual", VM: "art", Start: 1_700_000_000_000_000 + uint64(i)*60_000_000,
		Options: []Option{{Key: "pid", Value: fmt.Sprint(10_000 + i)}}})

	// Method ids in first-call order, and the per-method factors in id order.
	runFactor := lognormal(o.Noise.Run)
	methodFactor := map[uint32]float64{}
	var calls int
	var define func(cs []Call)
	define = func(cs []Call) {
		for j := range cs {
			c := &cs[j]
			id := b.Method(c.Class, c.Name, c.Signature, c.Source)
			if _, ok := methodFactor[id]; !ok {
				methodFactor[id] = lognormal(o.Noise.Method)
			}
			for range c.times() {
				calls++
				define(c.Calls)
			}
		}
	}
	for _, th := range a.Threads {
		define(th.Calls)
	}
	pause := make(map[int]uint32, o.Noise.Pauses)
	for range o.Noise.Pauses {
		if calls == 0 {
			break
		}
		lo := o.Noise.PauseMax / 4
		pause[rng.IntN(calls)] += lo + uint32(rng.Int64N(int64(o.Noise.PauseMax-lo)+1))
	}

	tbs := make([]*ThreadBuilder, len(a.Threads))
	for j, th := range a.Threads { // every thread's clock starts at 0
		tbs[j] = b.Thread(th.ID, th.Name)
	}
	n := 0 // calls made so far, in walk order
	for j, th := range a.Threads {
		tb := tbs[j]
		tb.Until(th.Start)
		var walk func(cs []Call)
		walk = func(cs []Call) {
			for k := range cs {
				c := &cs[k]
				id := b.Method(c.Class, c.Name, c.Signature, c.Source)
				for range c.times() {
					f := runFactor * methodFactor[id] * lognormal(o.Noise.Call)
					wall := uint32(math.Round(float64(c.Wall)*f)) + pause[n]
					cpu := min(uint32(math.Round(float64(c.CPU)*f)), wall)
					n++
					if o.Stretch != "" && c.Label() == o.Stretch {
						wall = uint32(math.Round(float64(wall) * o.Factor))
						cpu = uint32(math.Round(float64(cpu) * o.Factor))
					}
					tb.Call(id, wall, cpu, func() { walk(c.Calls) })
				}
			}
		}
		walk(th.Calls)
	}
	return b.Trace()
}

// FeedApp is a small app that starts and scrolls a feed: the main thread
// binds the application, creates and resumes the activity and draws frames
// that lay out and bind rows (FeedAdapter.onBindViewHolder, 8 per frame,
// calls ImageLoader.load and TextView.setText), a worker loads the feed
// over the network and parses it, and a second worker runs lib methods
// com.example.lib.pN.CN.mN, each called 3 to 6 times, for tests that need
// many methods. Framework methods have the names real traces carry. A run
// takes about 150 ms of wall time on the main thread; with lib = 0 it has
// about 30 methods.
func FeedApp(lib int) *App {
	leaf := func(class, name, sig string, wall, cpu uint32, times int) Call {
		return Call{Class: class, Name: name, Signature: sig, Source: source(class), Wall: wall, CPU: cpu, Times: times}
	}
	call := func(class, name, sig string, wall, cpu uint32, times int, calls ...Call) Call {
		c := leaf(class, name, sig, wall, cpu, times)
		c.Calls = calls
		return c
	}
	const (
		at       = "android.app.ActivityThread"
		instr    = "android.app.Instrumentation"
		act      = "android.app.Activity"
		choreo   = "android.view.Choreographer"
		feed     = "com.example.feed.FeedAdapter"
		frame    = "(J)V"
		view     = "android.view.View"
		textView = "android.widget.TextView"
	)
	bind := call(feed, "onBindViewHolder", "(Lcom/example/feed/FeedAdapter$Holder;I)V", 120, 110, 8,
		leaf("com.example.feed.ImageLoader", "load", "(Ljava/lang/String;Landroid/widget/ImageView;)V", 400, 300, 1),
		leaf(textView, "setText", "(Ljava/lang/CharSequence;)V", 150, 140, 2),
		leaf("com.example.feed.Formatter", "format", "(J)Ljava/lang/String;", 60, 60, 1),
	)
	doFrame := call(choreo, "doFrame", frame, 200, 180, 12,
		call("androidx.recyclerview.widget.RecyclerView", "onLayout", "(ZIIII)V", 300, 280, 1, bind),
		call(view, "measure", "(II)V", 500, 480, 1, leaf(textView, "onMeasure", "(II)V", 250, 240, 3)),
		call(view, "draw", "(Landroid/graphics/Canvas;)V", 900, 850, 1,
			leaf("android.graphics.RenderNode", "endRecording", "()V", 120, 100, 1)),
	)
	main := []Call{
		call(at, "handleBindApplication", "(Landroid/app/ActivityThread$AppBindData;)V", 3000, 2500, 1,
			call(instr, "callApplicationOnCreate", "(Landroid/app/Application;)V", 400, 380, 1,
				call("com.example.App", "onCreate", "()V", 2000, 1800, 1,
					leaf("com.example.di.Graph", "init", "()V", 4000, 3700, 1),
					leaf("com.example.App", "initLogging", "()V", 800, 700, 1)))),
		call(act, "performCreate", "(Landroid/os/Bundle;)V", 500, 450, 1,
			call("com.example.MainActivity", "onCreate", "(Landroid/os/Bundle;)V", 1500, 1400, 1,
				leaf("android.view.LayoutInflater", "inflate", "(ILandroid/view/ViewGroup;)Landroid/view/View;", 6000, 5600, 1),
				leaf(feed, "<init>", "(Ljava/util/List;)V", 300, 280, 1))),
		call(act, "performStart", "(Ljava/lang/String;)V", 300, 280, 1),
		call(act, "performResume", "(ZLjava/lang/String;)V", 400, 380, 1,
			leaf("com.example.MainActivity", "onResume", "()V", 700, 650, 1)),
		doFrame,
	}
	worker := []Call{
		call("com.example.feed.Repository", "refresh", "()V", 500, 450, 1,
			call("okhttp3.RealCall", "execute", "()Lokhttp3/Response;", 2000, 600, 2,
				leaf("java.net.SocketInputStream", "read", "([BII)I", 3000, 200, 6)),
			call("com.example.feed.Parser", "parse", "(Ljava/io/InputStream;)Ljava/util/List;", 1500, 1450, 1,
				leaf("com.example.feed.Item", "<init>", "(Ljava/lang/String;J)V", 40, 40, 40)),
			leaf("androidx.room.RoomDatabase", "insert", "(Ljava/util/List;)V", 2500, 2000, 1)),
	}
	threads := []AppThread{
		{ID: 1, Name: "main", Calls: main},
		{ID: 2, Name: "feed-loader", Start: 9000, Calls: worker},
	}
	if lib > 0 {
		// Lib methods in groups of 10 under a driver, each called 3 to 6
		// times for 40 to 130 µs.
		var groups []Call
		for g := 0; g*10 < lib; g++ {
			var ms []Call
			for k := g * 10; k < min(lib, g*10+10); k++ {
				class := fmt.Sprintf("com.example.lib.p%d.C%d", k/50, k)
				ms = append(ms, leaf(class, fmt.Sprintf("m%d", k), "(I)I", uint32(40+k%10*10), uint32(35+k%10*10), 3+k%4))
			}
			groups = append(groups, call(fmt.Sprintf("com.example.lib.Driver%d", g), "run", "()V", 50, 45, 1, ms...))
		}
		threads = append(threads, AppThread{ID: 3, Name: "lib-worker", Start: 2000, Calls: groups})
	}
	return &App{Threads: threads}
}

// source is the source file of a class: its simple name with .java.
func source(class string) string {
	for i := len(class) - 1; i >= 0; i-- {
		if class[i] == '.' {
			return class[i+1:] + ".java"
		}
	}
	return class + ".java"
}
