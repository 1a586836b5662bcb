package pftrace

import (
	"fmt"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/internal/pbread"
	"github.com/atrace2/atrace2/internal/profbuild"
	"github.com/atrace2/atrace2/samples"
)

// timebase is a PerfEvents.Timebase: what traced_perf samples on and how
// often (protos/perfetto/common/perf_events.proto).
type timebase struct {
	set        bool
	freq       uint64 // frequency 2, Hz
	period     uint64 // period 1, events
	pollMs     uint64 // poll_period_ms 6
	counter    uint64 // counter 4
	tracepoint string // tracepoint 3 {name 1}
	raw        bool   // raw_event 5
	name       string // name 10
}

type stackSampleDefaults struct {
	source     string
	primary    counterDesc
	hasPrimary bool
}

// PerfEvents.Counter values whose counts are nanoseconds of CPU time.
const (
	counterCPUClock  = 1 // SW_CPU_CLOCK
	counterTaskClock = 3 // SW_TASK_CLOCK
)

var counterNames = map[uint64]string{
	1: "SW_CPU_CLOCK", 2: "SW_PAGE_FAULTS", 3: "SW_TASK_CLOCK", 4: "SW_CONTEXT_SWITCHES",
	5: "SW_CPU_MIGRATIONS", 6: "SW_PAGE_FAULTS_MIN", 7: "SW_PAGE_FAULTS_MAJ", 20: "SW_DUMMY",
	10: "HW_CPU_CYCLES", 11: "HW_INSTRUCTIONS", 12: "HW_CACHE_REFERENCES", 13: "HW_CACHE_MISSES",
	14: "HW_BRANCH_INSTRUCTIONS", 15: "HW_BRANCH_MISSES", 16: "HW_BUS_CYCLES", 19: "HW_REF_CPU_CYCLES",
}

func readTimebase(m pbread.Msg) (timebase, error) {
	tb := timebase{set: true}
	for m.Next() {
		switch m.Num {
		case 1:
			tb.period = m.U
		case 2:
			tb.freq = m.U
		case 6:
			tb.pollMs = m.U
		case 4:
			tb.counter = m.U
		case 3:
			if m.Type == pbread.Bytes {
				t := m.Sub()
				for t.Next() {
					if t.Num == 1 {
						tb.tracepoint = string(t.Val)
					}
				}
			}
		case 5:
			tb.raw = true
		case 10:
			tb.name = string(m.Val)
		}
	}
	return tb, m.Err
}

// describe says what the timebase samples and how often, and the CPU time
// one sample stands for when that is known.
func (tb timebase) describe() (string, int64) {
	if !tb.set {
		return "linux.perf, timebase not stated", 0
	}
	event := counterNames[tb.counter]
	switch {
	case tb.tracepoint != "":
		event = "tracepoint " + tb.tracepoint
	case tb.raw:
		event = "raw event"
	case event == "":
		event = fmt.Sprintf("counter %d", tb.counter)
	}
	if tb.name != "" {
		event += fmt.Sprintf(" (%q)", tb.name)
	}
	cpuTime := tb.tracepoint == "" && !tb.raw && (tb.counter == counterCPUClock || tb.counter == counterTaskClock)
	switch {
	case tb.freq > 0:
		ns := int64(0)
		if cpuTime {
			ns = int64((1_000_000_000 + tb.freq/2) / tb.freq)
		}
		return fmt.Sprintf("linux.perf %s, %d Hz", event, tb.freq), ns
	case tb.period > 0:
		ns := int64(0)
		if cpuTime && tb.period < 1<<62 {
			ns = int64(tb.period)
		}
		return fmt.Sprintf("linux.perf %s, every %d", event, tb.period), ns
	case tb.pollMs > 0:
		return fmt.Sprintf("linux.perf %s, polled every %d ms", event, tb.pollMs), 0
	}
	return "linux.perf " + event, 0
}

// flushTimebase is called before a sequence's defaults change: the samples
// counted under the old timebase are added to its total.
func (rd *reader) flushTimebase(s *sequence) {
	if s.tbCount > 0 {
		d, ns := s.timebase.describe()
		rd.timebases[d] += s.tbCount
		rd.timebaseNs[d] = ns
		s.tbCount = 0
	}
}

// ssKey is what a StackSample is weighted on, for Profile.Period.
type ssKey struct {
	source  string
	desc    counterDesc
	hasDesc bool
}

// period sets the profile's period from the timebases the stack samples
// were taken on: only when all of them agree.
func (rd *reader) period() {
	for k := range rd.ssKinds {
		src := k.source
		if src == "" {
			src = "unnamed source"
		}
		d := fmt.Sprintf("StackSample %q", src)
		if k.hasDesc {
			d += ", weights " + k.desc.describe()
		}
		rd.timebases[d] += rd.ssKinds[k]
	}
	if len(rd.timebases) == 0 {
		return
	}
	var ds []string
	for d := range rd.timebases {
		ds = append(ds, d)
	}
	slices.Sort(ds)
	if len(ds) > 1 {
		rd.b.Note("samples were taken on %d timebases (%s): no sampling period is given", len(ds), strings.Join(ds, "; "))
		return
	}
	rd.b.Period, rd.b.PeriodNanos = ds[0], rd.timebaseNs[ds[0]]
}

// PerfSample fields (protos/perfetto/trace/profiling/profile_packet.proto).
const (
	psCPU            = 1
	psPID            = 2
	psTID            = 3
	psCallstack      = 4
	psKernelLost     = 17
	psSkipReason     = 18
	psProducerEvent  = 19
	skipNotInScope   = 4
	skipReadStage    = 1
	skipUnwindStage  = 2
	skipUnwindQueued = 3
)

// perfSample reads a PerfSample, traced_perf's sample: a thread, an
// interned call stack, or a loss or skip record (docs/formats.md §20.5).
func (rd *reader) perfSample(seq *sequence, m pbread.Msg, ts int64, clk clockKey, ok bool) error {
	var pid, tid, iid, lost, skip uint64
	hasStack, hasSkip, producer := false, false, false
	for m.Next() {
		switch m.Num {
		case psPID:
			pid = m.U
		case psTID:
			tid = m.U
		case psCallstack:
			iid, hasStack = m.U, true
		case psKernelLost:
			lost = m.U
		case psSkipReason:
			skip, hasSkip = m.U, true
		case psProducerEvent:
			producer = true
		}
	}
	if m.Err != nil {
		return m.Err
	}
	switch {
	case lost > 0:
		rd.st.lostRecords += int64(min(lost, 1<<40))
		return nil
	case producer:
		rd.st.guardrail++
		return nil
	case hasSkip && skip == skipNotInScope:
		rd.st.notInScope++
		return nil
	case !hasStack && hasSkip:
		rd.b.UnlistedFor(int64(uint32(pid)), skipReason(skip), 1)
		return nil
	case !hasStack:
		rd.st.counterOnly++
		return nil
	}
	thread := rd.b.Thread(int64(uint32(pid)), int64(uint32(tid)))
	node := rd.res.callstack(seq, iid)
	seq.tbCount++
	rd.add(thread, node, ts, clk, ok, 0)
	return nil
}

func skipReason(r uint64) string {
	switch r {
	case skipReadStage:
		return "samples traced_perf could not unwind (process memory not read in time)"
	case skipUnwindStage:
		return "samples traced_perf could not unwind (unwinder timed out)"
	case skipUnwindQueued:
		return "samples traced_perf dropped (unwind queue full)"
	}
	return "samples traced_perf skipped"
}

// streaming reads a StreamingProfilePacket (Chrome's sampler): interned
// call stacks of the sequence's thread, timed by µs deltas from the
// sequence's running time, which a ThreadDescriptor sets; trace_processor
// converts it from MONOTONIC when a snapshot allows, else keeps it.
func (rd *reader) streaming(seq *sequence, m pbread.Msg) error {
	var iids, deltas []uint64
	for m.Next() {
		switch m.Num {
		case 1:
			iids = appendRepeated(iids, &m)
		case 2:
			deltas = appendRepeated(deltas, &m)
		}
	}
	if m.Err != nil {
		return m.Err
	}
	if !seq.trackNsOK {
		rd.st.streamNoThread += int64(len(iids))
	}
	base := seq.trackNs
	if t, ok := rd.clocks.convert(clockKey{clockMonotonic, 0}, base); ok {
		base = t
	}
	ts := base
	thread := rd.b.Thread(seq.pid, seq.tid)
	for i, iid := range iids {
		if i >= len(deltas) {
			rd.st.streamNoDelta += int64(len(iids) - i)
			break
		}
		d := mulSat(int64(deltas[i]), 1000)
		seq.trackNs = satAdd(seq.trackNs, d)
		ts = satAdd(ts, d)
		if seq.trackNs < 0 {
			rd.st.negativeStreams++
			return nil
		}
		rd.add(thread, rd.res.callstack(seq, iid), ts, clockKey{}, true, 0)
	}
	for i := len(iids); i < len(deltas); i++ {
		seq.trackNs = satAdd(seq.trackNs, mulSat(int64(deltas[i]), 1000))
	}
	if len(iids) > 0 {
		rd.latest = max(rd.latest, ts)
	}
	return nil
}

// stackSample reads a StackSample (docs/formats.md §20.5): a task (inline
// or interned), a call stack (inline frames or an interned call stack)
// and a weight on a counter.
func (rd *reader) stackSample(seq *sequence, m pbread.Msg, ts int64, clk clockKey, ok bool) error {
	var tc taskContext
	var stackIID, weight uint64
	hasStackIID, hasWeight := false, false
	var inline pbread.Msg
	hasInline := false
	desc, hasDesc := seq.ssDef.primary, seq.ssDef.hasPrimary
	for m.Next() {
		switch m.Num {
		case 1:
			if m.Type == pbread.Bytes {
				_, tc, _ = readTaskContext(m.Sub())
			}
		case 2:
			tc = seq.tasks[m.U]
		case 5:
			if m.Type == pbread.Bytes {
				inline, hasInline = m.Sub(), true
			}
		case 6:
			stackIID, hasStackIID = m.U, true
		case 9:
			if m.Type == pbread.Bytes {
				_, desc, hasDesc = readCounterDesc(m.Sub())
			}
		case 10:
			desc, hasDesc = seq.counters[m.U]
		case 11:
			weight, hasWeight = m.U, true
		}
	}
	if m.Err != nil {
		return m.Err
	}
	pid, tid := tc.pid, tc.tid
	if !tc.hasPID && tc.hasTID {
		pid = rd.tidPID[tid]
	}
	var node int32
	switch {
	case hasStackIID:
		node = rd.res.callstack(seq, stackIID)
	case hasInline:
		var err error
		if node, err = rd.inlineStack(inline); err != nil {
			return err
		}
		if node == profbuild.NoParent {
			rd.st.noCallstack++
			return nil
		}
	default:
		rd.st.noCallstack++
		return nil
	}
	var w int64
	if hasWeight && hasDesc {
		if desc.unit == 1 { // UNIT_NANOSECONDS
			w = mulSat(int64(min(weight, 1<<62)), int64(max(min(desc.multiplier, 1<<30), 1)))
		} else {
			rd.st.weightsIgnored[desc.describe()]++
		}
	}
	rd.ssKinds[ssKey{seq.ssDef.source, desc, hasDesc}]++
	rd.add(rd.b.Thread(pid, tid), node, ts, clk, ok, w)
	return nil
}

// inlineStack interns an InlineCallstack: frames {function_name 1,
// source_file 2, line_number 3}, root first.
func (rd *reader) inlineStack(m pbread.Msg) (int32, error) {
	node := profbuild.NoParent
	for m.Next() {
		if m.Num != 1 || m.Type != pbread.Bytes {
			continue
		}
		f := m.Sub()
		var fn, file string
		var line uint64
		hasLine := false
		for f.Next() {
			switch f.Num {
			case 1:
				fn = string(f.Val)
			case 2:
				file = string(f.Val)
			case 3:
				line, hasLine = f.U, true
			}
		}
		if f.Err != nil {
			return 0, f.Err
		}
		fr := profbuild.MakeFrame(fn, "", "", 0, false)
		if fn == "" {
			fr = samples.Frame{Name: "[unknown]", Kind: samples.OtherFrame}
		}
		fr.File = file
		if hasLine {
			fr.Line, fr.HasLine = int(uint32(line)), true
		}
		node = rd.b.Node(node, rd.b.Frame(fr))
	}
	return node, m.Err
}

func satAdd(a, b int64) int64 {
	s := a + b
	if a > 0 && b > 0 && s < 0 {
		return 1<<63 - 1
	}
	if a < 0 && b < 0 && s >= 0 {
		return -1 << 63
	}
	return s
}
