package convert

import (
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// records applies the policy to a batch of records, or with a thread
// filter to those of the kept threads (keptRecords, threads.go).
func (p *pass) records(batch []parser.Record) {
	if p.keep != nil {
		p.keptRecords(batch)
		return
	}
	p.policyRecords(batch)
}

// policyRecords applies the policy to a batch of records. It is the hot
// loop of every command. Runs of common records (of a thread past its
// first records, a known method, an enter, or an exit of the top frame)
// go through fastRecords; the record that ends a run goes through record,
// which takes any record.
func (p *pass) policyRecords(batch []parser.Record) {
	for len(batch) > 0 {
		if !p.general {
			batch = batch[p.fastRecords(batch):]
		}
		if p.mode.sends() && len(p.out) == cap(p.out) {
			p.flush()
			continue
		}
		if len(batch) > 0 {
			p.record(&batch[0])
			batch = batch[1:]
		}
	}
}

// record applies the policy to one record of any kind: the common cases
// inline, everything else through the functions of policy.go.
func (p *pass) record(rec *parser.Record) {
	if rec.Action == parser.BadAction {
		p.stats.BadActions++
		return
	}
	th := p.lookup(rec.Thread)
	if th == nil {
		if th = p.newThread(rec.Thread); th == nil {
			return // the trace changed
		}
	}
	f := p.frame(rec.Method)
	if f == noFrame {
		return // the trace changed
	}
	wall := nanos(th.wall.next(rec.Wall, p.wrap32, p.stats), p.unit, p.maxTicks)
	cpu := nanos(th.cpu.next(rec.CPU, p.wrap32, p.stats), p.unit, p.maxTicks)
	if !th.started {
		p.start(th)
	}
	th.fast = true
	if p.mode.counts() {
		if th.probed < probeEvents {
			th.probed++
			p.probe.add(th.idx, wall, cpu)
			th.fast = th.probed == probeEvents
		}
	}
	n := len(th.stack)
	top := noFrame
	if n > th.floor {
		top = th.stack[n-1]
	}
	if rec.Action != parser.Enter && (rec.Action != parser.Exit || top != f) {
		p.exit(th, f, rec.Action, wall, cpu, rec.Offset)
		return
	}
	kind, depth := stream.Begin, n
	if rec.Action == parser.Exit {
		kind, depth = stream.End, n-1
		th.stack = th.stack[:n-1]
		if depth-th.floor >= deepScan {
			th.deep[f]--
		}
	} else {
		if n-th.floor >= CorruptDepth-1 {
			p.tooDeep(rec.Offset, "stack depth")
			return
		}
		th.stack = append(th.stack, f)
		if n-th.floor >= deepScan {
			if th.deep == nil {
				th.deep = make(map[stream.FrameID]int32)
			}
			th.deep[f]++
		}
	}
	// A frame below the depth limit is folded into the frame at the limit:
	// its enter and exit are not sent (fastRecords leaves such records to
	// this function).
	deep := depth-th.floor >= p.maxDepth
	if p.mode.counts() {
		if !deep {
			th.events++
		} else if kind == stream.Begin {
			p.stats.DeepFrames++
		}
		th.segDepth = max(th.segDepth, len(th.stack)-th.floor)
	}
	if p.mode.sends() && !deep {
		p.send(kind, 0, th, f, depth, wall, cpu)
	}
}

// fastRecords applies the policy to the common records at the start of
// batch, and returns how many it took. It calls no function and keeps few
// values live, so the compiler can hold the thread's state in registers:
// as of Go 1.26, calls make the loop spill and reload it around every
// record (BenchmarkConvert, BenchmarkAnalyze).
//
// It takes the records run by run, a run being the records of one thread
// in a row: at a thread switch it stores the thread's state back and loads
// the next one's from pass.table, so that a trace whose thread changes at
// nearly every record (BenchmarkAnalyze/interleaved) stays in the loop.
// It stops at the first record of a thread outside the table or not yet
// fast (threadState.fast: its first records all go to record, and the
// sampling probe's), of an unseen method, of another action than an enter
// or an exit of the top frame, with a time that goes back or wraps, or
// when the stack's array is full (an enter would grow it) or the stack
// reaches the depth limit or deepScan (the loop sees an array no larger
// than that, so one test covers both); and when p.out (or p.sink) is full.
func (p *pass) fastRecords(batch []parser.Record) int {
	// Each record taken sends one event: the events go to the spare room
	// of p.out, and the batch is cut to fit it, so the loop keeps no count
	// of its own for them. A pass that sends none writes them to p.sink,
	// so that the loop has no branch on it (see sink).
	evs := p.sink[:]
	if p.mode.sends() {
		evs = p.out[len(p.out):cap(p.out)]
	}
	batch = batch[:min(len(batch), len(evs))]
	table, dense := p.table, p.dense
	counts := p.mode.counts()
	i := 0
	for i < len(batch) {
		// A run: load the state of its thread.
		rid := batch[i].Thread
		if rid >= parser.ThreadID(len(table)) {
			break
		}
		th := table[rid]
		if th == nil || !th.fast {
			break
		}
		stack, floor := th.stack, th.floor
		limit := floor + p.fastDepth
		if len(stack) >= limit {
			break
		}
		stack = stack[:len(stack):min(cap(stack), limit)]
		// The record times of 32-bit layouts are below 2^32, and the epoch
		// of 64-bit ones stays 0, so epoch|raw is what unwrapper.next
		// computes when the time does not go back.
		wall, cpu := th.wall, th.cpu
		deepest, first := len(stack), i
		for ; i < len(batch); i++ {
			rec := &batch[i]
			if rec.Thread != rid || rec.Action > parser.Exit {
				break
			}
			var f stream.FrameID
			if j := rec.Method >> 2; j < parser.MethodID(len(dense)) && dense[j] != 0 {
				f = dense[j] - 1
			} else if slot := &p.frameCache[j%frameCacheSize]; slot.id == j<<2 && slot.frame != 0 {
				f = slot.frame - 1 // a pointer id (Dalvik, early ART)
			} else {
				break
			}
			// Which of an enter and an exit a record is follows no pattern,
			// so the code for them has no branch on it, which the CPU would
			// mispredict half the time: both write the slot above the top,
			// and the stack grows or shrinks by the action. An exit must
			// find f on top: the top is read whatever the action (the
			// first slot when the array is empty), and whether it is f
			// becomes a value, tested with the action in one branch that
			// is seldom taken. As of Go 1.26 "x := 0; if c { x = 1 }"
			// compiles to a SETcc or CMOV, but "if a || b" and
			// "isExit == 1 && ..." to branches, the second mispredicted on
			// every other record (BenchmarkAnalyze).
			n := len(stack)
			isExit := int(rec.Action) // 0 or 1
			if n == cap(stack) {
				break
			}
			notTop := 0
			if stack[:n+1][max(n-1, 0)] != f {
				notTop = 1
			}
			if n == floor {
				notTop = 1
			}
			w, c := wall.epoch|rec.Wall, cpu.epoch|rec.CPU
			if isExit&notTop != 0 || w < wall.last || c < cpu.last {
				break
			}
			wall.last, cpu.last = w, c
			stack[:n+1][n] = f
			stack = stack[:n+1-2*isExit]
			deepest = max(deepest, len(stack))
			ev := &evs[i] // fields one by one: as of Go 1.26 a composite literal goes through the stack
			ev.Kind, ev.Flags, ev.Thread, ev.Frame, ev.Depth = stream.Kind(isExit), 0, th.idx, f, int32(n-isExit)
			ev.Wall, ev.CPU = nanos(w, p.unit, p.maxTicks), nanos(c, p.unit, p.maxTicks)
		}
		if i == first {
			break // a record the loop does not take
		}
		// The run ends: store the state back. The epochs stay. The
		// thread's last times and the trace end are read from the
		// clocks at the end of the pass (pass.wallEnd, finish).
		th.stack, th.wall.last, th.cpu.last = th.stack[:len(stack)], wall.last, cpu.last
		if counts {
			th.events += int64(i - first)
			th.segDepth = max(th.segDepth, deepest-floor)
		}
	}
	if p.mode.sends() {
		p.out = p.out[:len(p.out)+i]
	}
	return i
}

// nanos converts ticks to ns, saturating: 64-bit V2 times of a corrupt
// file could otherwise overflow into negative durations.
func nanos(ticks uint64, unit int64, maxTicks uint64) int64 {
	return int64(min(ticks, maxTicks)) * unit
}
