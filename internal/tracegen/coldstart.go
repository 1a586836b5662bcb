package tracegen

import (
	"cmp"
	"slices"
	"strings"
)

// ColdStartOptions vary the cold start of [ColdStart].
type ColdStartOptions struct {
	// LateStart starts tracing inside bind, at the begin of
	// application-create, as a trace of an old runtime does: no enter for
	// the frames already running (ActivityThread.main, Looper.loop, the
	// bind message), whose exits come as orphan exits.
	LateStart bool
	// StackAtStart, with LateStart, writes the frames running when tracing
	// started as ART does: an enter of each at that instant (so
	// application-create, entered then, began before tracing started too),
	// not orphan exits.
	StackAtStart bool
	// Stretch names a phase whose every call's self time, wall and CPU,
	// is multiplied by Factor (a whole number, 0 meaning 1); the phases
	// after it move later by as much.
	Stretch string
	Factor  uint32
}

// ColdStartPhase is what a phase of the cold start should measure: the
// plan's times in µs and its top methods by exclusive wall time.
type ColdStartPhase struct {
	Name     string
	Recorded bool
	Begin    uint32 // 0 when the phase began before tracing started
	End      uint32
	Wall     uint32
	CPU      uint32
	OffCPU   uint32 // Σ over the phase's stacks of max(0, wall − cpu)
	Top      []ColdStartMethod
}

// ColdStartMethod is a method's exclusive time in a phase, in µs.
type ColdStartMethod struct {
	Name              string
	Wall, CPU, OffCPU uint32
}

// ColdStartTrace is a trace of an app's cold start and the phases it holds.
type ColdStartTrace struct {
	Trace  *Trace
	Phases []ColdStartPhase // in the order of package startup's names
}

// call is one call of the plan: a method, its self time (µs, split evenly
// before and after its callees) and its callees; phase marks the call
// that is a phase.
type call struct {
	method    string // class.name(signature)
	wall, cpu uint32
	phase     string
	body      []*call
	at        uint32 // the main thread waits until this wall time first (top-level calls)
}

func c(method string, wall, cpu uint32, body ...*call) *call {
	return &call{method: method, wall: wall, cpu: cpu, body: body}
}

func (k *call) mark(phase string) *call { k.phase = phase; return k }

// The framework methods as Android 8 names them (as in the real traces of
// docs/formats.md §17: the -wrap11 era, with performCreate(Bundle) calling
// performCreate(Bundle, PersistableBundle)).
const (
	csH        = "android.app.ActivityThread$H.handleMessage(Landroid/os/Message;)V"
	csDoFrameR = "android.view.Choreographer$FrameDisplayEventReceiver.run()V"
	csDoFrame  = "android.view.Choreographer.doFrame(JI)V"
	csCallback = "android.view.Choreographer.doCallbacks(IJ)V"
	csTravers  = "android.view.ViewRootImpl.performTraversals()V"
	csMeasure  = "android.view.View.measure(II)V"
	csLayout   = "android.view.View.layout(IIII)V"
	csDraw     = "android.view.ThreadedRenderer.draw(Landroid/view/View;Landroid/view/View$AttachInfo;Landroid/view/ThreadedRenderer$DrawCallbacks;)V"
)

// coldStartPlan is the main thread's messages, in order. The self times
// keep wall ≥ CPU in every call, so that a phase's off-CPU time is its
// wall minus its CPU time.
func coldStartPlan() []*call {
	bind := c("android.app.ActivityThread.handleBindApplication(Landroid/app/ActivityThread$AppBindData;)V", 200, 150,
		c("android.app.LoadedApk.makeApplication(ZLandroid/app/Instrumentation;)Landroid/app/Application;", 3000, 2000),
		c("android.app.Instrumentation.callApplicationOnCreate(Landroid/app/Application;)V", 0, 0,
			c("com.example.shop.ShopApp.onCreate()V", 400, 400,
				c("com.example.shop.di.Graph.init(Landroid/content/Context;)V", 12000, 9000),
				c("com.example.shop.Prefs.load()V", 6000, 1000),
			),
		).mark("application-create"),
	).mark("bind")
	launch := c("android.app.ActivityThread.handleLaunchActivity(Landroid/app/ActivityThread$ActivityClientRecord;Landroid/content/Intent;Ljava/lang/String;)V", 100, 100,
		c("android.app.ActivityThread.performLaunchActivity(Landroid/app/ActivityThread$ActivityClientRecord;Landroid/content/Intent;)Landroid/app/Activity;", 300, 300,
			c("android.app.Instrumentation.callActivityOnCreate(Landroid/app/Activity;Landroid/os/Bundle;)V", 0, 0,
				c("android.app.Activity.performCreate(Landroid/os/Bundle;)V", 0, 0,
					c("android.app.Activity.performCreate(Landroid/os/Bundle;Landroid/os/PersistableBundle;)V", 0, 0,
						c("com.example.shop.MainActivity.onCreate(Landroid/os/Bundle;)V", 500, 500,
							c("android.view.LayoutInflater.inflate(ILandroid/view/ViewGroup;Z)Landroid/view/View;", 15000, 12000),
							c("com.example.shop.MainActivity.loadConfig()V", 4000, 500),
						),
					),
				).mark("activity-create"),
			),
			c("android.app.Activity.performStart()V", 0, 0,
				c("android.app.Instrumentation.callActivityOnStart(Landroid/app/Activity;)V", 0, 0,
					c("com.example.shop.MainActivity.onStart()V", 800, 700),
				),
			).mark("activity-start"),
		),
		c("android.app.ActivityThread.handleResumeActivity(Landroid/os/IBinder;ZZZILjava/lang/String;)V", 200, 200,
			c("android.app.ActivityThread.performResumeActivity(Landroid/os/IBinder;ZLjava/lang/String;)Landroid/app/ActivityThread$ActivityClientRecord;", 0, 0,
				c("android.app.Activity.performResume()V", 0, 0,
					c("android.app.Instrumentation.callActivityOnResume(Landroid/app/Activity;)V", 0, 0,
						c("com.example.shop.MainActivity.onResume()V", 1500, 1200),
					),
				).mark("activity-resume"),
			),
			c("android.view.WindowManagerImpl.addView(Landroid/view/View;Landroid/view/ViewGroup$LayoutParams;)V", 2500, 2000),
		),
	)
	frame1 := c(csDoFrameR, 0, 0,
		c(csDoFrame, 100, 100,
			c(csCallback, 0, 0,
				c(csTravers, 0, 0,
					c(csMeasure, 3000, 2800),
					c(csLayout, 2000, 1900),
					c(csDraw, 6000, 3000),
				),
			),
		).mark("first-frame"),
	)
	frame2 := c(csDoFrameR, 0, 0,
		c(csDoFrame, 0, 0, c(csCallback, 0, 0, c(csTravers, 0, 0, c(csDraw, 2000, 1800)))),
	)
	drawn := c("com.example.shop.MainActivity$1.run()V", 100, 100,
		c("android.app.Activity.reportFullyDrawn()V", 300, 200).mark("fully-drawn"),
	)
	msg := func(at uint32, k *call) *call {
		m := c(csH, 0, 0, k)
		if k.method == csDoFrameR || k == drawn {
			m = k
		}
		m.at = at
		return m
	}
	return []*call{msg(500, bind), msg(30000, launch), msg(60000, frame1), msg(80000, frame2), msg(90000, drawn)}
}

// ColdStart builds a dual-clock trace of a cold start: the main thread
// (tid = pid 1000) runs ActivityThread.main and Looper.loop, entered at
// the trace start as ART writes the frames already running, and the
// messages bind, launch (create, start, resume), two frames and a
// reportFullyDrawn, nested as the real traces show them; a disk thread
// runs meanwhile. The phases' expected values are sums of the plan's self
// times, kept as the records are written; fully-drawn spans from the
// begin of the first recorded phase to the end of reportFullyDrawn.
func ColdStart(opt ColdStartOptions) *ColdStartTrace {
	plan := coldStartPlan()
	if opt.Stretch != "" && opt.Factor > 1 {
		for _, m := range plan {
			stretch(m, opt.Stretch, opt.Factor, false)
		}
	}
	b := NewBuilder(Trace{Version: 3, Clock: "dual", VM: "art", Start: 5_000_000_000,
		Options: []Option{{Key: "pid", Value: "1000"}}})
	id := func(method string) uint32 {
		i := strings.IndexByte(method, '(')
		j := strings.LastIndexByte(method[:i], '.')
		class := method[:j]
		src := class[strings.LastIndexByte(class, '.')+1:]
		if k := strings.IndexByte(src, '$'); k >= 0 {
			src = src[:k]
		}
		return b.Method(class, method[j+1:i], method[i:], src+".java")
	}
	main := b.Thread(1000, "main")
	disk := b.Thread(1010, "arch_disk_io_0")
	g := &coldGen{main: main, id: id, on: !opt.LateStart, spans: make(map[string]*span),
		looper: !opt.LateStart || opt.StackAtStart, stackAtStart: opt.StackAtStart}
	g.stack = []string{"android.app.ActivityThread.main([Ljava/lang/String;)V", "android.os.Looper.loop()V"}
	if g.on {
		main.Enter(id(g.stack[0]))
		main.Enter(id(g.stack[1]))
	}
	for i, m := range plan {
		if i == 1 {
			// The disk thread prefetches while the main thread is idle.
			disk.Until(23000)
			disk.Call(id("com.example.shop.data.Repo.prefetch()V"), 10000, 8000, nil)
		}
		_, now := main.Clocks()
		if m.at > now && g.looper {
			g.self([]*span{g.drawn}, "android.os.Looper.loop", m.at-now, 0)
		}
		main.Until(m.at)
		g.run(m, nil)
	}
	if g.looper {
		main.ExitAll()
	}
	return &ColdStartTrace{Trace: b.Trace(), Phases: g.phases()}
}

// stretch multiplies the self times of the calls inside the phase.
func stretch(k *call, phase string, factor uint32, inside bool) {
	inside = inside || k.phase == phase
	if inside {
		k.wall *= factor
		k.cpu *= factor
	}
	for _, b := range k.body {
		stretch(b, phase, factor, inside)
	}
}

// coldGen writes the plan and keeps, per phase, its clocks and the self
// times of the calls inside it.
type coldGen struct {
	main *ThreadBuilder
	id   func(string) uint32
	on   bool // tracing has started (LateStart: at application-create's begin)
	// looper says ActivityThread.main and Looper.loop are traced, so that
	// the gaps between messages are Looper.loop's self time.
	looper, stackAtStart bool
	stack                []string // the plan's calls running
	spans                map[string]*span
	// drawn is fully-drawn's span, open from the begin of the first
	// recorded phase to the end of reportFullyDrawn.
	drawn *span
}

// span is one phase's clocks and its methods' self times.
type span struct {
	beginWall, beginCPU uint32
	endWall, endCPU     uint32
	orphan, ended       bool
	self                map[string]*ColdStartMethod
	offCPU              uint32 // Σ per call part of max(0, wall − cpu)
}

func newSpan(t *ThreadBuilder) *span {
	s := &span{self: make(map[string]*ColdStartMethod)}
	s.beginCPU, s.beginWall = t.Clocks()
	return s
}

// self adds a call's self time to the spans that are open.
func (g *coldGen) self(spans []*span, name string, wall, cpu uint32) {
	for _, s := range spans {
		if s == nil || s.ended || wall == 0 && cpu == 0 {
			continue
		}
		m := s.self[name]
		if m == nil {
			m = &ColdStartMethod{Name: name}
			s.self[name] = m
		}
		m.Wall += wall
		m.CPU += cpu
		s.offCPU += max(wall, cpu) - cpu
	}
}

// run writes one call with its callees; open holds the phases the call
// is inside.
func (g *coldGen) run(k *call, open []*span) {
	t := g.main
	burst := false // the call is entered with the stack at tracing's start
	if k.phase == "application-create" && !g.on {
		g.on = true
		burst = g.stackAtStart
		if g.stackAtStart {
			for _, m := range g.stack {
				t.Enter(g.id(m))
			}
		}
	}
	var sp *span
	if k.phase != "" {
		sp = newSpan(t)
		sp.orphan = !g.on || burst
		if k.phase != "fully-drawn" {
			g.spans[k.phase] = sp
			open = append(open[:len(open):len(open)], sp)
		}
		if g.drawn == nil && !sp.orphan {
			g.drawn = newSpan(t)
		}
	}
	if g.on {
		t.Enter(g.id(k.method))
	}
	g.stack = append(g.stack, k.method)
	name := k.method[:strings.IndexByte(k.method, '(')]
	g.self(append(open[:len(open):len(open)], g.drawn), name, k.wall/2, k.cpu/2)
	t.Advance(k.wall/2, k.cpu/2)
	for _, b := range k.body {
		g.run(b, open)
	}
	g.self(append(open[:len(open):len(open)], g.drawn), name, k.wall-k.wall/2, k.cpu-k.cpu/2)
	t.Advance(k.wall-k.wall/2, k.cpu-k.cpu/2)
	g.stack = g.stack[:len(g.stack)-1]
	// A frame that was running when tracing started ends in an orphan
	// exit; one that ended before leaves no record.
	if g.on {
		t.Exit(g.id(k.method))
	}
	if sp != nil {
		sp.endCPU, sp.endWall = t.Clocks()
		sp.ended = true
		if k.phase == "fully-drawn" && g.drawn != nil {
			g.drawn.endCPU, g.drawn.endWall = sp.endCPU, sp.endWall
			g.drawn.ended = true
			g.spans[k.phase] = g.drawn
		}
	}
}

// phases works out what each phase should measure.
func (g *coldGen) phases() []ColdStartPhase {
	names := []string{"bind", "application-create", "activity-create", "activity-start", "activity-resume", "first-frame", "fully-drawn"}
	var out []ColdStartPhase
	for _, n := range names {
		s := g.spans[n]
		p := ColdStartPhase{Name: n}
		switch {
		case s == nil:
		case s.orphan:
			p.End = s.endWall
		default:
			p.Recorded = true
			p.Begin, p.End = s.beginWall, s.endWall
			p.Wall, p.CPU = s.endWall-s.beginWall, s.endCPU-s.beginCPU
			p.OffCPU = s.offCPU
			p.Top = top(s.self)
		}
		out = append(out, p)
	}
	return out
}

// top sorts the methods by exclusive wall time, then name, drops those
// with no time and keeps five.
func top(self map[string]*ColdStartMethod) []ColdStartMethod {
	var ms []ColdStartMethod
	for _, m := range self {
		if m.Wall == 0 && m.CPU == 0 {
			continue
		}
		mm := *m
		mm.OffCPU = max(m.Wall, m.CPU) - m.CPU
		ms = append(ms, mm)
	}
	slices.SortFunc(ms, func(x, y ColdStartMethod) int {
		if c := cmp.Compare(y.Wall, x.Wall); c != 0 {
			return c
		}
		return cmp.Compare(x.Name, y.Name)
	})
	return ms[:min(5, len(ms))]
}
