package samples_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stream"
)

// recorder is an exporter that writes down what it gets.
type recorder struct {
	lines  []string
	begin  *stream.Trace
	finish *stream.Trace
}

func (r *recorder) Begin(t *stream.Trace) error { r.begin = t; return nil }
func (r *recorder) Finish(t *stream.Trace) error {
	r.finish = t
	return nil
}
func (r *recorder) Events(b *stream.Batch) error {
	for _, ev := range b.Events {
		r.lines = append(r.lines, fmt.Sprintf("%s %s %s d%d wall %d cpu %d", b.Threads[ev.Thread].Name, ev.Kind,
			b.Frames[ev.Frame].Name, ev.Depth, ev.Wall/1e6, ev.CPU/1e6))
	}
	return nil
}

// timedProfile has two threads of one process and frames A, B and C:
// main samples A;B at 0 and 10 ms, A;C at 20 and 50 ms; worker A at 5 ms.
// The sampling period is 10 ms.
func timedProfile(t *testing.T) *samples.Profile {
	p := &samples.Profile{
		Format:      samples.PerfettoTrace,
		Processes:   []samples.Process{{PID: 10, Name: "app", Samples: 5}},
		Threads:     []samples.Thread{{ID: 10, TID: 10, PID: 10, Name: "main"}, {ID: 11, TID: 11, PID: 10, Name: "worker"}},
		PeriodNanos: 10_000_000,
		EndNanos:    50_000_000,
	}
	for _, n := range "ABC" {
		p.Frames = append(p.Frames, samples.Frame{Name: "p." + string(n), Class: "p", Method: string(n)})
	}
	p.Samples = []samples.Sample{
		{Thread: 0, Stack: []int{0, 1}, Count: 2},
		{Thread: 0, Stack: []int{0, 2}, Count: 2},
		{Thread: 1, Stack: []int{0}, Count: 1},
	}
	p.MaxDepth = 2
	ms := int64(1_000_000)
	p.Timeline = samples.NewTimeline([]samples.TimedSample{
		{Thread: 0, Sample: 1, Time: 50 * ms}, {Thread: 0, Sample: 0, Time: 0}, {Thread: 1, Sample: 2, Time: 5 * ms},
		{Thread: 0, Sample: 0, Time: 10 * ms}, {Thread: 0, Sample: 1, Time: 20 * ms},
	})
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlay: a sample's stack changes at its time, a run of samples of one
// stack is one slice per frame, a stack ends a period after its last
// sample when the thread's next sample comes later (or never), and the
// thread-CPU clock is the periods covered; the threads' events merge in
// time order. Begin has the complete trace: the threads' counts.
func TestPlay(t *testing.T) {
	p := timedProfile(t)
	tree, err := p.Tree("app.perfetto-trace")
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	if err := p.Play(tree.Trace(), &r); err != nil {
		t.Fatal(err)
	}
	want := `main begin p.A d0 wall 0 cpu 0
main begin p.B d1 wall 0 cpu 0
worker begin p.A d0 wall 5 cpu 0
worker end p.A d0 wall 15 cpu 10
main end p.B d1 wall 20 cpu 20
main begin p.C d1 wall 20 cpu 20
main end p.C d1 wall 30 cpu 30
main end p.A d0 wall 30 cpu 30
main begin p.A d0 wall 50 cpu 30
main begin p.C d1 wall 50 cpu 30
main end p.C d1 wall 60 cpu 40
main end p.A d0 wall 60 cpu 40`
	if got := strings.Join(r.lines, "\n"); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	b := r.begin
	if b == nil || b != r.finish || !b.HasWall || !b.HasCPU || b.WallEnd != 60_000_000 || b.Process.PID != 10 || len(b.Threads) != 2 {
		t.Fatalf("trace %+v", b)
	}
	if th := b.Threads[0]; th.Name != "main" || th.ID != 10 || th.Events != 10 || th.MaxDepth != 2 || th.LastWall != 60_000_000 || th.LastCPU != 40_000_000 {
		t.Errorf("main %+v", th)
	}
	if th := b.Threads[1]; th.Name != "worker" || th.Events != 2 || th.MaxDepth != 1 {
		t.Errorf("worker %+v", th)
	}
}

// TestPlayNoPeriod: without a period a sample lasts the median interval
// between two samples of a thread (10 ms here), and the stream has no
// thread-CPU clock.
func TestPlayNoPeriod(t *testing.T) {
	p := timedProfile(t)
	p.PeriodNanos = 0
	if c := p.Cover(); c != 10_000_000 {
		t.Errorf("cover %d, want the median interval, 10 ms", c)
	}
	tree, err := p.Tree("app")
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	if err := p.Play(tree.Trace(), &r); err != nil {
		t.Fatal(err)
	}
	if r.begin.HasCPU || len(r.lines) != 12 || !strings.HasSuffix(r.lines[11], "wall 60 cpu 0") {
		t.Errorf("HasCPU %v, events %q", r.begin.HasCPU, r.lines)
	}
}

// TestTimelineRemap: samples merged or dropped (--root) take their
// timeline samples with them, still in thread and time order.
func TestTimelineRemap(t *testing.T) {
	p := timedProfile(t)
	// Sample 1 (A;C) merges into sample 0; the worker's goes.
	p.Samples[0].Count += p.Samples[1].Count
	p.Samples = p.Samples[:1]
	p.Frames, p.MaxDepth = p.Frames[:2], 2
	p.Timeline.Remap([]int{0, 0, -1})
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	var times []int64
	it := p.Timeline.Iter()
	for s, ok := it.Next(); ok; s, ok = it.Next() {
		if s.Sample != 0 || s.Thread != 0 {
			t.Errorf("sample %+v", s)
		}
		times = append(times, s.Time/1e6)
	}
	if fmt.Sprint(times) != "[0 10 20 50]" {
		t.Errorf("times %v", times)
	}
}
