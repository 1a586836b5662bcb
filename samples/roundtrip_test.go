package samples_test

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil/sampled"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/samples/samplegen"
)

// canon is a sample in a form that does not depend on frame or thread
// numbering, so a profile and a samplegen description can be compared.
type canon struct {
	trace       int64
	thread      string
	stack       string // frameText of each frame, root first
	count, time int64
}

func canonOf(p *samples.Profile) []canon {
	out := make([]canon, len(p.Samples))
	for i, s := range p.Samples {
		c := canon{trace: s.Trace, count: s.Count, time: s.TimeNanos}
		if s.Thread >= 0 {
			th := p.Threads[s.Thread]
			c.thread = threadText(th.ID, th.Name, th.Group)
		}
		names := make([]string, len(s.Stack))
		for j, f := range s.Stack {
			names[j] = sampled.FrameText(p.Frames[f])
		}
		c.stack = strings.Join(names, "; ")
		out[i] = c
	}
	return sortCanon(out)
}

func threadText(id int64, name, group string) string { return fmt.Sprintf("%d %q %q", id, name, group) }

func sortCanon(cs []canon) []canon {
	slices.SortFunc(cs, func(a, b canon) int {
		return cmp.Or(cmp.Compare(a.trace, b.trace), cmp.Compare(a.stack, b.stack))
	})
	return cs
}

// variant is one way of writing a random profile, with what reading it
// must give.
type variant struct {
	name   string
	format samples.Format
	write  func(rng *rand.Rand) (data []byte, want []canon, total, timeNs, unlisted int64, threads []string)
}

var variants = []variant{
	{"dalvik", samples.DalvikHprof, func(rng *rand.Rand) ([]byte, []canon, int64, int64, int64, []string) {
		h := samplegen.RandomHprof(rng, true)
		want, total, _ := hprofWant(h, true, false, 0)
		return h.Dalvik(), want, total, 0, 0, threadsOf(h)
	}},
	{"jvm-samples", samples.JVMHprofSamples, func(rng *rand.Rand) ([]byte, []canon, int64, int64, int64, []string) {
		h := samplegen.RandomHprof(rng, false)
		o := samplegen.JVMOptions{Dumps: 1 + rng.IntN(3), Others: rng.IntN(2) == 0}
		if o.Dumps == 1 && rng.IntN(2) == 0 {
			o.Cutoff = rng.Int64N(500) // rows are whole counts only with one dump
		}
		want, total, dropped := hprofWant(h, false, false, o.Cutoff)
		return h.JVM(o), want, total, 0, dropped, threadsOf(h)
	}},
	{"jvm-times", samples.JVMHprofTimes, func(rng *rand.Rand) ([]byte, []canon, int64, int64, int64, []string) {
		h := samplegen.RandomHprof(rng, false)
		want, _, _ := hprofWant(h, false, true, 0)
		return h.JVM(samplegen.JVMOptions{Times: true, Others: rng.IntN(2) == 0}), want, 0, 10000 * 1e6, 0, threadsOf(h)
	}},
	{"art-method", samples.ARTProfileMethod, func(rng *rand.Rand) ([]byte, []canon, int64, int64, int64, []string) {
		a := samplegen.RandomART(rng, false)
		return a.Text(), artWant(a), a.Samples, 0, a.Null + a.Boot, nil
	}},
	{"art-bounded", samples.ARTProfileBoundedStack, func(rng *rand.Rand) ([]byte, []canon, int64, int64, int64, []string) {
		a := samplegen.RandomART(rng, true)
		return a.Text(), artWant(a), a.Samples, 0, a.Null + a.Boot, nil
	}},
}

func threadsOf(h *samplegen.Hprof) []string {
	var out []string
	for _, t := range h.Threads {
		out = append(out, threadText(t.ID, t.Name, t.Group))
	}
	return out
}

// hprofWant is what the reader must make of h: one sample per trace with
// samples (and a row over the cutoff), frames as each writer prints them.
func hprofWant(h *samplegen.Hprof, dalvik, times bool, cutoff int64) (want []canon, total, dropped int64) {
	threads := map[int64]string{}
	for _, t := range h.Threads {
		threads[t.ID] = threadText(t.ID, t.Name, t.Group)
	}
	for _, t := range h.Traces {
		total += t.Count
		if t.Count == 0 || t.Count < cutoff && !times {
			dropped += t.Count
			continue
		}
		c := canon{trace: t.ID, thread: threads[t.Thread], count: t.Count}
		if times {
			c.time = t.TimeMs * 1e6
		}
		names := make([]string, len(t.Frames))
		for i, f := range t.Frames {
			names[len(names)-1-i] = sampled.FrameText(expectedFrame(f, dalvik))
		}
		c.stack = strings.Join(names, "; ")
		want = append(want, c)
	}
	return sortCanon(want), total, dropped
}

// expectedFrame is what each writer's text keeps of a frame.
func expectedFrame(f samplegen.Frame, dalvik bool) samples.Frame {
	out := samples.Frame{Name: f.Class + "." + f.Method, Class: f.Class, Method: f.Method, File: f.File, Native: f.Native}
	if dalvik && f.Native {
		out.File = "" // "(Native Method)" has no file
	}
	if !f.Native && f.Line >= 0 && (f.File != "" || !dalvik) {
		out.Line, out.HasLine = f.Line, true
	}
	return out
}

// artWant merges equal stacks, as the reader does.
func artWant(a *samplegen.ART) []canon {
	frame := func(m samplegen.MethodRef) string {
		return sampled.FrameText(samples.Frame{Name: m.Class + "." + m.Name, Class: m.Class, Method: m.Name, Signature: m.Signature()})
	}
	counts := map[string]int64{}
	var order []string
	add := func(stack string, n int64) {
		if _, ok := counts[stack]; !ok {
			order = append(order, stack)
		}
		counts[stack] += n
	}
	for _, m := range a.Methods {
		left := m.Count
		for _, c := range m.Chains {
			names := []string{frame(m.MethodRef)}
			for _, cl := range c.Callers {
				names = append([]string{frame(cl.MethodRef)}, names...)
			}
			add(strings.Join(names, "; "), c.Count)
			left -= c.Count
		}
		if left > 0 || !a.Bounded {
			add(frame(m.MethodRef), left)
		}
	}
	var want []canon
	for _, s := range order {
		want = append(want, canon{stack: s, count: counts[s]})
	}
	return sortCanon(want)
}

// roundTrip writes a random profile with variant v and checks what Read
// makes of it.
func roundTrip(t *testing.T, v variant, rng *rand.Rand) {
	data, want, total, timeNs, unlisted, threads := v.write(rng)
	p, err := samples.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	got := canonOf(p)
	var gotThreads []string
	for _, th := range p.Threads {
		gotThreads = append(gotThreads, threadText(th.ID, th.Name, th.Group))
	}
	var gotUnlisted int64
	for _, u := range p.Unlisted {
		gotUnlisted += u.Count
	}
	switch {
	case p.Format != v.format:
		t.Errorf("format %v, want %v", p.Format, v.format)
	case p.Total != total || p.TotalTimeNanos != timeNs || gotUnlisted != unlisted:
		t.Errorf("total %d, time %d, unlisted %d; want %d, %d, %d", p.Total, p.TotalTimeNanos, gotUnlisted, total, timeNs, unlisted)
	case !slices.Equal(gotThreads, threads):
		t.Errorf("threads\n%q\nwant\n%q", gotThreads, threads)
	case !slices.Equal(got, want):
		t.Errorf("samples\n%+v\nwant\n%+v\nfrom\n%s", got, want, data)
	}
	for _, n := range p.Notes {
		if strings.Contains(n, "skipped") || strings.Contains(n, "cut short") {
			t.Errorf("unexpected note: %s", n)
		}
	}
}

// TestRoundTrip writes random profiles in every layout and reads them back.
func TestRoundTrip(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			for seed := range uint64(300) {
				roundTrip(t, v, rand.New(rand.NewPCG(seed, 1)))
				if t.Failed() {
					t.Fatalf("seed %d", seed)
				}
			}
		})
	}
}
