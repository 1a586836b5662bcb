package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// This file is the focus tests' oracle: an interpreter of a tracegen
// description that computes, straight from its records and the rules of
// issue 23 (README "Focus"), what every output must show for a focus. It
// shares no code with atrace2, and it handles only the traces the focus
// tests generate: v3 files whose times never go back or wrap, whose exits
// always match the innermost open frame or an empty stack (an orphan
// exit), and whose orphan exits come when every frame the thread opened
// itself has exited. Within those, it follows convert/doc.go's stack
// policy: orphan frames open at time 0 on both clocks, the later outside;
// frames open at the end end at the trace end on the wall clock (the
// largest wall time of any record, --thread or not) and at the thread's
// last thread-CPU time.

// oFocus is a focus as the CLI flags give it; times are µs since the
// trace start, to < 0 means no --to.
type oFocus struct {
	threads  []string
	from, to int64
	root     *regexp.Regexp
}

// oStack is one folded stack's totals: exclusive wall and thread-CPU
// time in µs, calls, and off-CPU time.
type oStack struct{ wall, cpu, calls, off int64 }

// offcpu is the derived clock of a stack: max(0, wall − cpu) per node of
// the call tree, summed over the nodes that print as this stack.
func (s oStack) offcpu() int64 { return s.off }

// oEvent is one event of a thread's balanced stream.
type oEvent struct {
	begin     bool
	orphan    bool // the begin of an orphan frame, at the trace start
	method    uint32
	wall, cpu int64
}

// oThread is one thread of the description.
type oThread struct {
	id     uint32
	name   string
	events []oEvent
}

// frameName is how every output names a method: class.method.
func frameName(tr *tracegen.Trace, id uint32) string {
	for _, m := range tr.Methods {
		if m.ID == id {
			return m.Class + "." + m.Name
		}
	}
	panic(fmt.Sprintf("method %#x not in the table", id))
}

// threadLabel is the thread frame of folded: "name (tid N)".
func (th *oThread) label() string { return fmt.Sprintf("%s (tid %d)", th.name, th.id) }

// keepThread applies --thread: a name matching any pattern (RE2,
// unanchored) or a tid equal to one in decimal.
func keepThread(patterns []string, id uint32, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if p == strconv.FormatUint(uint64(id), 10) || regexp.MustCompile(p).MatchString(name) {
			return true
		}
	}
	return false
}

// oThreads replays the records of the kept threads into balanced events.
func oThreads(tr *tracegen.Trace, f oFocus) []*oThread {
	names := map[uint32]string{}
	for _, th := range tr.Threads {
		if _, ok := names[th.ID]; !ok {
			names[th.ID] = th.Name
		}
	}
	var order []uint32
	recs := map[uint32][]tracegen.Record{}
	var end int64
	for _, r := range tr.Records {
		end = max(end, int64(r.Wall))
		if !keepThread(f.threads, r.Thread, names[r.Thread]) {
			continue
		}
		if _, ok := recs[r.Thread]; !ok {
			order = append(order, r.Thread)
		}
		recs[r.Thread] = append(recs[r.Thread], r)
	}
	var out []*oThread
	for _, id := range order {
		th := &oThread{id: id, name: names[id]}
		rs := recs[id]
		// Orphan exits, found by a first pass: exits met with no frame of
		// the thread's own open.
		var orphans []uint32
		depth := 0
		for _, r := range rs {
			switch {
			case r.Action == tracegen.Enter:
				depth++
			case depth > 0:
				depth--
			default:
				orphans = append(orphans, r.Method)
			}
		}
		var stack []uint32
		for i := len(orphans) - 1; i >= 0; i-- {
			th.events = append(th.events, oEvent{begin: true, orphan: true, method: orphans[i]})
			stack = append(stack, orphans[i])
		}
		var cpu int64
		for _, r := range rs {
			cpu = int64(r.CPU)
			if r.Action == tracegen.Enter {
				stack = append(stack, r.Method)
			} else {
				if len(stack) == 0 || stack[len(stack)-1] != r.Method {
					panic(fmt.Sprintf("oracle: thread %d: exit of %#x does not match the stack %v", id, r.Method, stack))
				}
				stack = stack[:len(stack)-1]
			}
			th.events = append(th.events, oEvent{begin: r.Action == tracegen.Enter, method: r.Method, wall: int64(r.Wall), cpu: cpu})
		}
		for i := len(stack) - 1; i >= 0; i-- {
			th.events = append(th.events, oEvent{method: stack[i], wall: end, cpu: cpu})
		}
		out = append(out, th)
	}
	return out
}

// oracle computes the folded stacks of the focus: the key is the folded
// line's stack, thread frame first ("main (tid 1);a.A.run;a.B.run").
//
// The window: a frame is kept when its wall interval meets [from, to];
// each stretch between consecutive events of a thread adds its length
// clipped to the window to the wall time of the stack on top, and its CPU
// time only when both its events lie in the window. The root: a stack
// keeps its part from the outermost frame matching the pattern, and a
// stack without one is dropped (its time and calls too).
func oracle(tr *tracegen.Trace, f oFocus) map[string]*oStack {
	to := f.to
	if to < 0 {
		to = 1 << 62
	}
	// nodes are the call tree's nodes: the folded stack with every orphan
	// frame marked, since an orphan frame is a node of its own, apart
	// from calls of the same method at the same place (pprof labels its
	// samples synthetic). Off-CPU time is clamped per node.
	nodes := map[string]*oStack{}
	printed := map[string]string{}
	for _, th := range oThreads(tr, f) {
		type frame struct {
			method uint32
			orphan bool
			begin  int64 // wall time
		}
		var stack []frame
		key := func() (string, bool) {
			names := []string{th.label()}
			start := 0
			if f.root != nil {
				start = -1
				for i, fr := range stack {
					if f.root.MatchString(frameName(tr, fr.method)) {
						start = i
						break
					}
				}
				if start < 0 {
					return "", false
				}
			}
			var marks []string
			for _, fr := range stack[start:] {
				names = append(names, frameName(tr, fr.method))
				marks = append(marks, fmt.Sprint(fr.orphan))
			}
			k := strings.Join(names, ";")
			node := k + "|" + strings.Join(marks, ",")
			printed[node] = k
			return node, true
		}
		at := func(k string) *oStack {
			if nodes[k] == nil {
				nodes[k] = &oStack{}
			}
			return nodes[k]
		}
		for i, e := range th.events {
			if e.begin {
				stack = append(stack, frame{e.method, e.orphan, e.wall})
			} else {
				// The frame ends here: count its call if it meets the window.
				if e.wall >= f.from && stack[len(stack)-1].begin <= to {
					if k, ok := key(); ok {
						at(k).calls++
					}
				}
				stack = stack[:len(stack)-1]
			}
			if i+1 == len(th.events) || len(stack) == 0 {
				continue
			}
			k, ok := key()
			if !ok {
				continue
			}
			next := th.events[i+1]
			s := at(k)
			if w := min(next.wall, to) - max(e.wall, f.from); w > 0 {
				s.wall += w
			}
			if e.wall >= f.from && next.wall <= to {
				s.cpu += next.cpu - e.cpu
			}
		}
	}
	res := map[string]*oStack{}
	for node, s := range nodes {
		k := printed[node]
		if res[k] == nil {
			res[k] = &oStack{}
		}
		r := res[k]
		r.wall += s.wall
		r.cpu += s.cpu
		r.calls += s.calls
		r.off += max(0, s.wall-s.cpu)
	}
	return res
}

// clockValue is a stack's value on a clock, or its calls.
func clockValue(s oStack, clock string) int64 {
	switch clock {
	case "wall":
		return s.wall
	case "cpu":
		return s.cpu
	case "offcpu":
		return s.offcpu()
	case "calls":
		return s.calls
	}
	panic("unknown clock " + clock)
}

// oTotals sums every stack on each clock.
func oTotals(stacks map[string]*oStack) (t oStack, off int64) {
	for _, s := range stacks {
		t.wall += s.wall
		t.cpu += s.cpu
		t.calls += s.calls
		off += s.offcpu()
	}
	return t, off
}

// oMethods sums the stacks by their innermost frame: top's exclusive
// times and calls.
func oMethods(stacks map[string]*oStack) map[string]*oStack {
	res := map[string]*oStack{}
	for k, s := range stacks {
		leaf := k[strings.LastIndexByte(k, ';')+1:]
		if !strings.Contains(k, ";") {
			continue
		}
		if res[leaf] == nil {
			res[leaf] = &oStack{}
		}
		res[leaf].wall += s.wall
		res[leaf].cpu += s.cpu
		res[leaf].calls += s.calls
		res[leaf].off += s.off
	}
	return res
}
