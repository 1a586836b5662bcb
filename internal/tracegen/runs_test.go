package tracegen

import (
	"bytes"
	"math"
	"testing"
)

// callTimes is one call as the records give it: the method's label, its
// inclusive and exclusive wall and thread-CPU µs, and the index of its
// caller (-1 for an outermost call).
type callTimes struct {
	label               string
	inclWall, inclCPU   int64
	exclWall, exclCPU   int64
	parent              int
	enterWall, enterCPU uint32
}

// parseCalls replays t's records per thread with a stack of its own and
// returns every call in enter order. It fails on unmatched records: runs
// are complete call trees.
func parseCalls(t *testing.T, tr *Trace) []callTimes {
	t.Helper()
	label := map[uint32]string{}
	for _, m := range tr.Methods {
		label[m.ID] = m.Class + "." + m.Name
	}
	var calls []callTimes
	stacks := map[uint32][]int{}
	for _, r := range tr.Records {
		st := stacks[r.Thread]
		switch r.Action {
		case Enter:
			parent := -1
			if len(st) > 0 {
				parent = st[len(st)-1]
			}
			calls = append(calls, callTimes{label: label[r.Method], parent: parent, enterWall: r.Wall, enterCPU: r.CPU})
			stacks[r.Thread] = append(st, len(calls)-1)
		case Exit:
			if len(st) == 0 || calls[st[len(st)-1]].label != label[r.Method] {
				t.Fatalf("unmatched exit of %s", label[r.Method])
			}
			c := &calls[st[len(st)-1]]
			c.inclWall, c.inclCPU = int64(r.Wall-c.enterWall), int64(r.CPU-c.enterCPU)
			stacks[r.Thread] = st[:len(st)-1]
		default:
			t.Fatalf("record action %v", r.Action)
		}
	}
	for th, st := range stacks {
		if len(st) > 0 {
			t.Fatalf("thread %d: %d calls open at the end", th, len(st))
		}
	}
	for i := range calls {
		calls[i].exclWall, calls[i].exclCPU = calls[i].inclWall, calls[i].inclCPU
	}
	for _, c := range calls {
		if c.parent >= 0 {
			calls[c.parent].exclWall -= c.inclWall
			calls[c.parent].exclCPU -= c.inclCPU
		}
	}
	return calls
}

// totals sums the exclusive and inclusive times per method label (no
// method of FeedApp recurses, so inclusive times add up).
func totals(calls []callTimes) map[string][4]int64 {
	m := map[string][4]int64{}
	for _, c := range calls {
		v := m[c.label]
		v[0] += c.exclWall
		v[1] += c.exclCPU
		v[2] += c.inclWall
		v[3] += c.inclCPU
		m[c.label] = v
	}
	return m
}

// planTotals computes the same sums from the App itself, without noise.
func planTotals(a *App) map[string][4]int64 {
	m := map[string][4]int64{}
	var walk func(cs []Call) (wall, cpu int64)
	walk = func(cs []Call) (wall, cpu int64) {
		for _, c := range cs {
			for range max(c.Times, 1) {
				w, u := walk(c.Calls)
				v := m[c.Class+"."+c.Name]
				v[0] += int64(c.Wall)
				v[1] += int64(c.CPU)
				v[2] += int64(c.Wall) + w
				v[3] += int64(c.CPU) + u
				m[c.Class+"."+c.Name] = v
				wall += int64(c.Wall) + w
				cpu += int64(c.CPU) + u
			}
		}
		return wall, cpu
	}
	for _, th := range a.Threads {
		walk(th.Calls)
	}
	return m
}

func TestRunWithoutNoiseIsThePlan(t *testing.T) {
	a := FeedApp(25)
	got := totals(parseCalls(t, a.Run(RunOptions{Seed: 7}, 3)))
	want := planTotals(a)
	if len(got) != len(want) {
		t.Fatalf("%d methods in the trace, %d in the plan", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: excl wall, cpu, incl wall, cpu = %v, want %v", k, got[k], w)
		}
	}
	// A hand-computed case: a row binding's inclusive time is its own 120
	// µs, the image load's 400, two setText of 150 and the format's 60;
	// 8 rows in each of 12 frames.
	if w := int64(12 * 8 * (120 + 400 + 2*150 + 60)); want["com.example.feed.FeedAdapter.onBindViewHolder"][2] != w {
		t.Errorf("plan: onBindViewHolder incl wall %d, want %d", want["com.example.feed.FeedAdapter.onBindViewHolder"][2], w)
	}
	// With a stretch and no noise, the stretched method's exclusive time is
	// the plan's times the factor, exactly.
	st := totals(parseCalls(t, a.Run(RunOptions{Seed: 7, Stretch: "android.widget.TextView.setText", Factor: 1.5}, 3)))
	if g, w := st["android.widget.TextView.setText"], want["android.widget.TextView.setText"]; g[0] != w[0]*3/2 || g[1] != w[1]*3/2 {
		t.Errorf("stretched setText excl %v, want 1.5 × %v", g, w)
	}
	// setText runs under measure (3 × onMeasure: not setText) and 2 per row.
	added := want["android.widget.TextView.setText"][0] / 2
	if g, w := st["com.example.feed.FeedAdapter.onBindViewHolder"][2], want["com.example.feed.FeedAdapter.onBindViewHolder"][2]+added; g != w {
		t.Errorf("onBindViewHolder incl wall %d, want %d", g, w)
	}
}

func TestRunStretchIsExact(t *testing.T) {
	a := FeedApp(40)
	for _, stretch := range []struct {
		label  string
		factor float64
	}{
		{"com.example.feed.ImageLoader.load", 1.5},
		{"android.view.Choreographer.doFrame", 1.1},
		{"com.example.lib.p0.C17.m17", 2},
		{"java.net.SocketInputStream.read", 0.5},
	} {
		for seed := range uint64(4) {
			o := RunOptions{Noise: RealisticNoise, Seed: seed}
			base := parseCalls(t, a.Run(o, 2))
			o.Stretch, o.Factor = stretch.label, stretch.factor
			got := parseCalls(t, a.Run(o, 2))
			if len(got) != len(base) {
				t.Fatalf("%s: %d calls, %d without the stretch", stretch.label, len(got), len(base))
			}
			// addedWall[i], addedCPU[i]: time the stretch added in call i's
			// subtree.
			addedWall := make([]int64, len(base))
			addedCPU := make([]int64, len(base))
			stretched := 0
			for i := len(base) - 1; i >= 0; i-- {
				b, g := base[i], got[i]
				if b.label != g.label || b.parent != g.parent {
					t.Fatalf("call %d: %s under %d, %s under %d without the stretch", i, g.label, g.parent, b.label, b.parent)
				}
				wantWall, wantCPU := b.exclWall, b.exclCPU
				if b.label == stretch.label {
					stretched++
					wantWall = int64(math.Round(float64(b.exclWall) * stretch.factor))
					wantCPU = int64(math.Round(float64(b.exclCPU) * stretch.factor))
				}
				if g.exclWall != wantWall || g.exclCPU != wantCPU {
					t.Errorf("%s seed %d: call %d (%s) excl %d/%d µs, want %d/%d", stretch.label, seed, i, g.label, g.exclWall, g.exclCPU, wantWall, wantCPU)
				}
				addedWall[i] += wantWall - b.exclWall
				addedCPU[i] += wantCPU - b.exclCPU
				if g.inclWall-b.inclWall != addedWall[i] || g.inclCPU-b.inclCPU != addedCPU[i] {
					t.Errorf("%s seed %d: call %d (%s) incl grew by %d/%d µs, want %d/%d", stretch.label, seed, i, g.label,
						g.inclWall-b.inclWall, g.inclCPU-b.inclCPU, addedWall[i], addedCPU[i])
				}
				if b.parent >= 0 {
					addedWall[b.parent] += addedWall[i]
					addedCPU[b.parent] += addedCPU[i]
				}
			}
			if stretched == 0 {
				t.Errorf("%s: no call stretched", stretch.label)
			}
		}
	}
}

func TestRunNoise(t *testing.T) {
	a := FeedApp(0)
	o := RunOptions{Noise: RealisticNoise, Seed: 11}
	if !bytes.Equal(a.Run(o, 4).Regular(), a.Run(o, 4).Regular()) {
		t.Fatal("the same seed and run gave two traces")
	}
	plan := planTotals(a)
	const label = "com.example.feed.FeedAdapter.onBindViewHolder"
	var logs []float64
	for i := range 30 {
		calls := parseCalls(t, a.Run(o, i))
		for _, c := range calls {
			if c.exclCPU > c.exclWall || c.exclCPU < 0 {
				t.Fatalf("run %d: %s excl CPU %d, wall %d", i, c.label, c.exclCPU, c.exclWall)
			}
		}
		tot := totals(calls)
		logs = append(logs, math.Log(float64(tot[label][1])/float64(plan[label][1])))
	}
	// The CPU time of 96 calls varies by the run and method factors (σ
	// 0.02 and 0.03 of the log) and a tenth of the call factor's: about
	// 0.037 in all.
	var mean, sd float64
	for _, l := range logs {
		mean += l / float64(len(logs))
	}
	for _, l := range logs {
		sd += (l - mean) * (l - mean) / float64(len(logs)-1)
	}
	sd = math.Sqrt(sd)
	if math.Abs(mean) > 0.03 || sd < 0.02 || sd > 0.06 {
		t.Errorf("log of %s's CPU time / plan: mean %.3f, sd %.3f over 30 runs; want about 0 and 0.037", label, mean, sd)
	}
	// Pauses alone add 4 × [500, 2000] µs of wall time and no CPU time.
	var planWall, planCPU int64
	for _, v := range plan {
		planWall += v[0]
		planCPU += v[1]
	}
	for i := range 5 {
		var wall, cpu int64
		for _, v := range totals(parseCalls(t, a.Run(RunOptions{Noise: Noise{Pauses: 4, PauseMax: 2000}, Seed: 3}, i))) {
			wall += v[0]
			cpu += v[1]
		}
		if cpu != planCPU || wall-planWall < 4*500 || wall-planWall > 4*2000 {
			t.Errorf("run %d with pauses only: wall %d (plan %d), cpu %d (plan %d)", i, wall, planWall, cpu, planCPU)
		}
	}
}
