package tracegen

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
)

// StackKind is the packet a StackProfile's samples are written as.
type StackKind int

const (
	// PerfSamples are traced_perf's PerfSample packets (linux.perf, what
	// ProfilingManager records).
	PerfSamples StackKind = iota
	// StreamingSamples are StreamingProfilePackets (Chrome's sampler): one
	// thread per sequence, timed by µs deltas from its ThreadDescriptor.
	StreamingSamples
	// StackSampleSamples are the newer StackSample packets, with task
	// contexts and a weight in ns.
	StackSampleSamples
)

// StackProfile describes a Perfetto trace of CPU stack samples of the
// device newWorld builds, written the way traced_perf writes them
// (docs/formats.md §20): the tracing service's clock snapshots and process
// tree, then each sequence's defaults packet (incremental state cleared,
// timestamps on CLOCK_MONOTONIC), fixed internings (iid 0 is ""), and
// samples whose new interned entries (mappings, strings, frames, call
// stacks) come in the sample's own packet. Sequences number their iids on
// their own, so two sequences use the same iids for different entries.
type StackProfile struct {
	Seed    uint64
	Samples int // stack samples written, readable or not
	Kind    StackKind
	// Sequences is the number of packet sequences (data sources) writing
	// samples; 0 means 1. StreamingSamples write one per thread.
	Sequences int
	// ClearEvery resets a sequence's incremental state after that many of
	// its samples, renumbering its iids from 1; 0 never.
	ClearEvery int
	// SplitInterned puts some samples' new interned entries in a packet of
	// their own before the sample.
	SplitInterned bool
	// CompressEvery bundles that many packets at a time in zlib-compressed
	// compressed_packets fields; 0 writes them plain.
	CompressEvery int
	Gzip          bool // gzip the whole trace
	Hz            int  // sampling frequency stated in the defaults; 0 means 100
	// StacksPerThread bounds the distinct stacks of a thread; 0 means 40.
	StacksPerThread int
	// SuspendNs makes BOOTTIME run ahead of MONOTONIC by that much more
	// from the middle of the trace on (the device slept), stated by a clock
	// snapshot taken at the wake-up.
	SuspendNs int64
	// UnknownStacks samples refer to a call stack never interned, and as
	// many to a call stack whose last frame was never interned.
	UnknownStacks int
	// Skipped PerfSamples carry no stack: traced_perf skipped them.
	Skipped int
	// LoseAfter makes the first sequence lose a packet after that many of
	// its samples: its samples are unreadable until its next reset.
	LoseAfter int
	// Obfuscate names the app's methods as R8 would and appends the
	// trace's own DeobfuscationMapping, unless OmitMapping.
	Obfuscate   bool
	OmitMapping bool
}

// StackExpect is what a reader must make of a StackProfile's trace.
type StackExpect struct {
	// Counts are the readable samples per pid, tid and stack: frame names
	// root first joined by ";", as the trace names them (obfuscated ones
	// included); a stack never interned is "[unknown call stack]", a frame
	// never interned "[unknown frame]".
	Counts  map[StackCount]int64
	Samples []ExpectSample // every readable sample, in the order written
	// Processes maps pid to its name and readable sample count.
	Processes map[int64]ExpectProcess
	Threads   map[int64]string // thread names by tid
	Unknown   int64            // readable samples with an unknown call stack or frame
	Lost      int64            // samples unreadable after the lost packet
	Skipped   map[int64]int64  // traced_perf's skipped samples per pid
	Deobf     map[string]string
	PeriodNs  int64
	// FirstNs is the trace-clock time of the first readable sample.
	FirstNs int64
}

// StackCount keys StackExpect.Counts.
type StackCount struct {
	PID, TID int64
	Stack    string
}

// ExpectSample is one readable sample with its time on the trace clock
// (BOOTTIME).
type ExpectSample struct {
	PID, TID int64
	Stack    string
	Time     int64
}

// ExpectProcess is a process of a StackExpect.
type ExpectProcess struct {
	Name    string
	Samples int64
}

// Clock constants of the generated traces.
const (
	genMonoStart = 1_000_000_000_000 // MONOTONIC at the first sample: 1000 s after boot
	genBootAhead = 3_000_000_000     // BOOTTIME − MONOTONIC before any suspend
	genRealAhead = 1_700_000_000_000_000_000
	serviceSeq   = 1
	firstDataSeq = 8
)

// seqWriter is one sequence's interning state, as traced_perf's
// InterningOutputTracker keeps it.
type seqWriter struct {
	id       uint32
	next     uint64 // next iid of a string, mapping, frame or call stack
	strs     map[string]uint64
	dumped   map[string]bool // "kind\x00value" of strings written
	maps     map[*worldMapping]uint64
	frames   map[worldFrame]uint64
	stacks   map[string]uint64
	samples  int // written since the last reset
	lost     bool
	lostOnce bool
	thread   *worldThread // StreamingSamples: the sequence's thread
	lastMono int64
}

func newSeqWriter(id uint32) *seqWriter {
	s := &seqWriter{id: id}
	s.reset()
	return s
}

func (s *seqWriter) reset() {
	s.next = 1
	s.strs, s.dumped = map[string]uint64{}, map[string]bool{}
	s.maps, s.frames, s.stacks = map[*worldMapping]uint64{}, map[worldFrame]uint64{}, map[string]uint64{}
	s.samples = 0
}

// str interns a string of a kind (5 function_names, 16 build_ids, 17
// mapping_paths), writing it into in when new.
func (s *seqWriter) str(in pb, kind int, v string) (pb, uint64) {
	id, ok := s.strs[v]
	if !ok {
		id = s.next
		s.next++
		s.strs[v] = id
	}
	if k := string(rune(kind)) + "\x00" + v; !s.dumped[k] {
		s.dumped[k] = true
		in = in.msg(kind, pb(nil).varint(1, id).str(2, v))
	}
	return in, id
}

// stack interns a call stack and what it needs, writing new entries into in.
func (s *seqWriter) stack(in pb, fs []*worldFrame) (pb, uint64) {
	key := stackKey(fs)
	for _, f := range fs {
		key += "\x00" + strconv.FormatUint(f.pc, 16)
	}
	if id, ok := s.stacks[key]; ok {
		return in, id
	}
	ids := make([]uint64, len(fs))
	for i, f := range fs {
		fid, ok := s.frames[*f]
		if !ok {
			var mid uint64
			mid, ok = s.maps[f.m]
			if !ok {
				m := pb(nil)
				var paths []uint64
				for _, e := range f.m.elems {
					var pid uint64
					in, pid = s.str(in, 17, e)
					paths = append(paths, pid)
				}
				var bid uint64
				if f.m.buildID != "" {
					in, bid = s.str(in, 16, f.m.buildID)
				}
				mid = s.next
				s.next++
				s.maps[f.m] = mid
				m = m.varint(1, mid).varint(2, bid).varint(8, 0).varint(3, 0).varint(4, 0x7000000000).varint(5, 0x7000100000)
				for _, p := range paths {
					m = m.varint(7, p)
				}
				in = in.msg(19, m)
			}
			var fn uint64
			if f.fn != "" {
				in, fn = s.str(in, 5, f.fn)
			}
			fid = s.next
			s.next++
			s.frames[*f] = fid
			fr := pb(nil).varint(1, fid).varint(2, fn).varint(3, mid).varint(4, f.pc)
			if f.kind != 0 {
				fr = fr.varint(7, f.kind)
			}
			in = in.msg(6, fr)
		}
		ids[i] = fid
	}
	id := s.next
	s.next++
	s.stacks[key] = id
	cs := pb(nil).varint(1, id)
	for _, f := range ids {
		cs = cs.varint(2, f)
	}
	return in.msg(7, cs), id
}

// genPacket is a packet to write with the time that orders it.
type genPacket struct {
	mono int64 // MONOTONIC time, for ordering within a window; -1 first
	seq  uint32
	b    pb
}

// Perfetto writes the trace and what a reader must make of it.
func (sp StackProfile) Perfetto() ([]byte, *StackExpect) {
	rng := rand.New(rand.NewPCG(sp.Seed, 0x5eed))
	w := newWorld(rng, cmpOr(sp.StacksPerThread, 40), sp.Obfuscate)
	hz := int64(cmpOr(sp.Hz, 100))
	exp := &StackExpect{Counts: map[StackCount]int64{}, Processes: map[int64]ExpectProcess{},
		Threads: map[int64]string{}, Skipped: map[int64]int64{}, Deobf: map[string]string{},
		PeriodNs: (1_000_000_000 + hz/2) / hz, FirstNs: -1}
	if sp.Kind != PerfSamples {
		exp.PeriodNs = 0 // no timebase: StackSamples carry weights, streaming packets nothing
	}
	for _, p := range w.procs {
		exp.Processes[p.pid] = ExpectProcess{Name: p.cmdline[0]}
		for _, t := range p.threads {
			exp.Threads[t.tid] = t.name
		}
	}

	var out bytes.Buffer
	var pending []pb // packets of the current bundle
	flush := func() {
		if len(pending) == 0 {
			return
		}
		var tr pb
		for _, p := range pending {
			tr = tr.msg(1, p)
		}
		pending = pending[:0]
		if sp.CompressEvery > 0 {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(tr)
			zw.Close()
			tr = pb(nil).msg(1, pb(nil).bytes(50, z.Bytes()))
		}
		out.Write(tr)
	}
	emit := func(p pb) {
		pending = append(pending, p)
		if sp.CompressEvery <= 0 || len(pending) >= sp.CompressEvery {
			flush()
		}
	}

	// The service's packets: a clock snapshot, the process tree.
	offset := int64(genBootAhead)
	var snaps [][2]int64 // (MONOTONIC, BOOTTIME − MONOTONIC) of each snapshot
	snapshot := func(mono int64) pb {
		snaps = append(snaps, [2]int64{mono, offset})
		c := func(id int, ts int64) pb { return pb(nil).varint(1, uint64(id)).varint(2, uint64(ts)) }
		return pb(nil).varint(8, uint64(mono+offset)).varint(58, 6).varint(10, serviceSeq).
			msg(6, pb(nil).msg(1, c(6, mono+offset)).msg(1, c(1, mono+offset+genRealAhead)).
				msg(1, c(3, mono)).msg(1, c(5, mono-1234)))
	}
	emit(snapshot(genMonoStart - 2_000_000))
	tree := pb(nil)
	for _, p := range w.procs {
		m := pb(nil).varint(1, uint64(p.pid)).varint(2, 1)
		for _, c := range p.cmdline {
			m = m.str(3, c)
		}
		tree = tree.msg(1, m.varint(5, p.uid))
		for _, t := range p.threads {
			tree = tree.msg(2, pb(nil).varint(1, uint64(t.tid)).str(2, t.name).varint(3, uint64(p.pid)))
		}
	}
	emit(pb(nil).varint(8, uint64(genMonoStart-1_000_000+offset)).varint(10, serviceSeq).msg(2, tree))
	// android.packages_list: the app's uid, by which readers find the
	// package of frames whose mapping does not name it.
	emit(pb(nil).varint(8, uint64(genMonoStart-900_000+offset)).varint(10, serviceSeq).
		msg(47, pb(nil).msg(1, pb(nil).str(1, "com.example.app").varint(2, 10123).varint(5, 42))))

	// The sequences.
	var seqs []*seqWriter
	switch {
	case sp.Kind == StreamingSamples:
		for i, t := range w.threads {
			s := newSeqWriter(uint32(firstDataSeq + i))
			s.thread = t
			seqs = append(seqs, s)
		}
	default:
		for i := 0; i < max(sp.Sequences, 1); i++ {
			seqs = append(seqs, newSeqWriter(uint32(firstDataSeq+i)))
		}
	}
	bySeq := map[uint32]*seqWriter{}
	for _, s := range seqs {
		bySeq[s.id] = s
	}
	start := func(s *seqWriter, mono int64) []pb {
		var ps []pb
		defaults := pb(nil).varint(58, 3)
		switch sp.Kind {
		case PerfSamples:
			defaults = defaults.msg(12, pb(nil).msg(1, pb(nil).varint(2, uint64(hz)).varint(4, 1)))
		case StackSampleSamples:
			defaults = defaults.msg(100, pb(nil).str(1, "art.sampler").msg(2, pb(nil).str(2, "cpu-time").varint(3, 1)))
		}
		first := pb(nil).varint(8, uint64(mono+offset)).varint(58, 6).varint(10, uint64(s.id)).varint(13, 1).msg(59, defaults)
		if sp.Kind == StreamingSamples {
			// The reset and the thread's reference time in one packet.
			s.lastMono = mono / 1000 * 1000
			first = first.msg(44, pb(nil).varint(1, uint64(s.thread.pid)).varint(2, uint64(s.thread.tid)).
				str(5, s.thread.name).varint(6, uint64(s.lastMono/1000)))
		}
		ps = append(ps, first)
		fixed := pb(nil)
		for _, k := range []int{16, 17, 5} {
			fixed = fixed.msg(k, pb(nil).varint(1, 0).str(2, ""))
		}
		ps = append(ps, pb(nil).varint(10, uint64(s.id)).varint(13, 2).msg(12, fixed))
		s.reset()
		return ps
	}

	// Samples, in windows: a window's samples are written sequence by
	// sequence (out of time order across sequences, as the service's
	// chunks interleave), a clock snapshot between windows.
	const window = 48
	step := max(1_000_000_000/(hz*int64(len(w.threads))), 1000)
	mono := int64(genMonoStart)
	suspended := false
	written := 0
	unknownLeft, badFrameLeft, skippedLeft := sp.UnknownStacks, sp.UnknownStacks, sp.Skipped
	for _, s := range seqs {
		for _, p := range start(s, mono-500_000) {
			emit(p)
		}
	}
	for written < sp.Samples {
		if !suspended && sp.SuspendNs > 0 && written >= sp.Samples/2 {
			suspended = true
			offset += sp.SuspendNs
		}
		emit(snapshot(mono))
		var batch []genPacket
		n := min(window, sp.Samples-written)
		if sp.Kind == StreamingSamples {
			batch = sp.streamingWindow(rng, w, seqs, n, &mono, snaps, exp)
		} else {
			for i := 0; i < n; i++ {
				mono += step/2 + rng.Int64N(step)
				t, stack := w.pick(rng)
				s := seqs[rng.IntN(len(seqs))]
				batch = append(batch, sp.sample(rng, s, t, stack, mono, offset, &unknownLeft, &badFrameLeft, &skippedLeft, exp)...)
			}
		}
		written += n
		// Sequence by sequence, each in time order.
		sort.SliceStable(batch, func(i, j int) bool { return batch[i].seq < batch[j].seq })
		for _, p := range batch {
			emit(p.b)
		}
		// Resets.
		for _, s := range seqs {
			if sp.ClearEvery > 0 && s.samples >= sp.ClearEvery {
				s.lost = false
				for _, p := range start(s, mono+1) {
					emit(p)
				}
			}
		}
		mono += step
	}
	if sp.Obfuscate {
		if !sp.OmitMapping {
			emit(pb(nil).msg(64, w.deobfuscationMapping()))
		}
		for _, t := range w.threads {
			for _, st := range t.stacks {
				for _, f := range st {
					if f.deobf != "" {
						exp.Deobf[f.fn] = f.deobf
					}
				}
			}
		}
	}
	flush()
	data := out.Bytes()
	if sp.Gzip {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		data = z.Bytes()
	}
	return data, exp
}

// sample writes one PerfSample or StackSample of thread t at stack.
func (sp StackProfile) sample(rng *rand.Rand, s *seqWriter, t *worldThread, stack []*worldFrame, mono, offset int64,
	unknownLeft, badFrameLeft, skippedLeft *int, exp *StackExpect) []genPacket {
	s.samples++
	hdr := pb(nil).varint(8, uint64(mono)).varint(10, uint64(s.id)).varint(13, 2)
	if sp.LoseAfter > 0 && s.id == firstDataSeq && s.samples == sp.LoseAfter && !s.lostOnce {
		s.lost, s.lostOnce = true, true
		hdr = hdr.varint(42, 1)
	}
	readable := !s.lost
	var in pb
	var sid uint64
	key := stackKey(stack)
	unknown := false
	switch {
	case sp.Kind == PerfSamples && *skippedLeft > 0 && rng.IntN(8) == 0:
		*skippedLeft--
		ps := pb(nil).varint(1, uint64(rng.IntN(8))).varint(2, uint64(t.pid)).varint(3, uint64(t.tid)).
			varint(5, 2).varint(6, uint64(mono)).varint(18, 3)
		if readable {
			exp.Skipped[t.pid]++
		} else {
			exp.Lost++
		}
		return []genPacket{{mono, s.id, hdr.msg(66, ps)}}
	case *unknownLeft > 0 && rng.IntN(16) == 0:
		*unknownLeft--
		sid, key, unknown = 1<<40+uint64(rng.IntN(100)), "[unknown call stack]", true
	case *badFrameLeft > 0 && rng.IntN(16) == 0:
		*badFrameLeft--
		in, _ = s.stack(in, stack[:len(stack)-1])
		// A call stack naming a frame never interned: its own iid space.
		cs := pb(nil).varint(1, 1<<41+uint64(*badFrameLeft))
		for _, f := range stack[:len(stack)-1] {
			cs = cs.varint(2, s.frames[*f])
		}
		cs = cs.varint(2, 1<<42)
		in = in.msg(7, cs)
		sid = 1<<41 + uint64(*badFrameLeft)
		key = stackKey(stack[:len(stack)-1]) + ";[unknown frame]"
		unknown = true
	default:
		in, sid = s.stack(in, stack)
	}
	var out []genPacket
	if sp.SplitInterned && len(in) > 0 && rng.IntN(3) == 0 {
		out = append(out, genPacket{mono, s.id, pb(nil).varint(10, uint64(s.id)).varint(13, 2).msg(12, in)})
		in = nil
	}
	if len(in) > 0 {
		hdr = hdr.msg(12, in)
	}
	switch sp.Kind {
	case StackSampleSamples:
		ss := pb(nil).msg(1, pb(nil).varint(2, uint64(t.pid)).varint(3, uint64(t.tid))).varint(6, sid).varint(11, 10_000_000)
		hdr = hdr.msg(135, ss)
	default:
		ps := pb(nil).varint(1, uint64(rng.IntN(8))).varint(2, uint64(t.pid)).varint(3, uint64(t.tid)).
			varint(5, 2).varint(6, uint64(mono)).varint(4, sid)
		hdr = hdr.msg(66, ps)
	}
	out = append(out, genPacket{mono, s.id, hdr})
	if !readable {
		exp.Lost++
		return out
	}
	exp.record(t, key, mono+offset, unknown)
	return out
}

// streamingWindow writes a window of StreamingProfilePackets: per thread
// (sequence), the call stacks sampled and their µs deltas.
func (sp StackProfile) streamingWindow(rng *rand.Rand, w *world, seqs []*seqWriter, n int, mono *int64, snaps [][2]int64, exp *StackExpect) []genPacket {
	type smp struct {
		stack []*worldFrame
		t     int64
	}
	per := map[*seqWriter][]smp{}
	byThread := map[*worldThread]*seqWriter{}
	for _, s := range seqs {
		byThread[s.thread] = s
	}
	step := int64(1_000_000_000 / (int64(cmpOr(sp.Hz, 100)) * int64(len(w.threads))))
	for i := 0; i < n; i++ {
		*mono += step/2 + rng.Int64N(step)
		*mono = *mono / 1000 * 1000
		t, stack := w.pick(rng)
		s := byThread[t]
		per[s] = append(per[s], smp{stack, *mono})
	}
	var out []genPacket
	for _, s := range seqs {
		ss := per[s]
		if len(ss) == 0 {
			continue
		}
		var in pb
		var iids, deltas []uint64
		// The packet's base time (the running time before its first delta)
		// converts with the latest snapshot at or before it; every sample of
		// the packet keeps that offset, as trace_processor computes it.
		offset := snaps[0][1]
		for _, sn := range snaps {
			if sn[0] <= s.lastMono {
				offset = sn[1]
			}
		}
		for _, x := range ss {
			var id uint64
			in, id = s.stack(in, x.stack)
			iids = append(iids, id)
			deltas = append(deltas, uint64((x.t-s.lastMono)/1000))
			s.lastMono = x.t
			s.samples++
			exp.record(s.thread, stackKey(x.stack), x.t+offset, false)
		}
		hdr := pb(nil).varint(10, uint64(s.id)).varint(13, 2)
		if len(in) > 0 {
			hdr = hdr.msg(12, in)
		}
		// Both fields are repeated without [packed = true]: one field per
		// value, as Chrome writes them and trace_processor reads them.
		sp := pb(nil)
		for _, id := range iids {
			sp = sp.varint(1, id)
		}
		for _, d := range deltas {
			sp = sp.varint(2, d)
		}
		out = append(out, genPacket{ss[0].t, s.id, hdr.msg(54, sp)})
	}
	return out
}

// record counts a readable sample.
func (e *StackExpect) record(t *worldThread, key string, ts int64, unknown bool) {
	e.Counts[StackCount{t.pid, t.tid, key}]++
	e.Samples = append(e.Samples, ExpectSample{t.pid, t.tid, key, ts})
	p := e.Processes[t.pid]
	p.Samples++
	e.Processes[t.pid] = p
	if unknown {
		e.Unknown++
	}
	if e.FirstNs < 0 || ts < e.FirstNs {
		e.FirstNs = ts
	}
}

// deobfuscationMapping writes the app's DeobfuscationMapping: package_name
// 1, obfuscated_classes 3 {obfuscated_name 1, deobfuscated_name 2,
// obfuscated_methods 4 {obfuscated_name 1, deobfuscated_name 2}}.
func (w *world) deobfuscationMapping() pb {
	m := pb(nil).str(1, "com.example.app").varint(2, 42)
	classes := make([]string, 0, len(w.obf))
	for c := range w.obf {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	for _, c := range classes {
		cl := pb(nil).str(1, c).str(2, w.obf[c])
		var meths []string
		for k := range w.obfMeth {
			if len(k) > len(c) && k[:len(c)+1] == c+"." {
				meths = append(meths, k)
			}
		}
		slices.Sort(meths)
		for _, k := range meths {
			cl = cl.msg(4, pb(nil).str(1, k[len(c)+1:]).str(2, w.obfMeth[k]))
		}
		m = m.msg(3, cl)
	}
	return m
}

func cmpOr(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}
