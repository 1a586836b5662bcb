package pftrace

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/internal/pbread"
	"github.com/atrace2/atrace2/internal/units"
)

// Name priorities: a process tree (linux.process_stats reading /proc)
// names processes and threads over what track and thread descriptors say,
// as trace_processor ranks them.
const (
	prioDescriptor = 1
	prioProcTree   = 2
)

// processTree reads a ProcessTree: processes {pid 1, ppid 2, cmdline 3,
// uid 5, cmdline_is_comm 9}, threads {tid 1, name 2, tgid 3}.
func (rd *reader) processTree(m pbread.Msg) error {
	for m.Next() {
		if m.Type != pbread.Bytes {
			continue
		}
		e := m.Sub()
		switch m.Num {
		case 1:
			var pid, uid uint64
			var cmdline []string
			hasUID, isComm := false, false
			for e.Next() {
				switch e.Num {
				case 1:
					pid = e.U
				case 3:
					if e.Type == pbread.Bytes {
						cmdline = append(cmdline, string(e.Val))
					}
				case 5:
					uid, hasUID = e.U, true
				case 9:
					isComm = e.U != 0
				}
			}
			if e.Err != nil {
				return e.Err
			}
			if len(cmdline) == 0 {
				continue // trace_processor skips processes without a cmdline
			}
			p := int64(int32(pid))
			// A single cmdline element holding spaces is a process that
			// rewrote its cmdline with spaces for NULs: its name is the
			// first word (trace_processor's system_probes_parser).
			name := cmdline[0]
			if len(cmdline) == 1 {
				name, _, _ = strings.Cut(name, " ")
			}
			rd.b.NameProcess(p, name, prioProcTree)
			if isComm {
				rd.b.NameThread(p, strings.Join(cmdline, " "), prioProcTree)
			}
			if hasUID {
				rd.procUID[p] = uid
			}
		case 2:
			var tid, tgid uint64
			var name []byte
			hasName := false
			for e.Next() {
				switch e.Num {
				case 1:
					tid = e.U
				case 2:
					name, hasName = e.Val, true
				case 3:
					tgid = e.U
				}
			}
			if e.Err != nil {
				return e.Err
			}
			t := int64(int32(tid))
			rd.tidPID[t] = int64(int32(tgid))
			if hasName {
				rd.b.NameThread(t, string(name), prioProcTree)
			}
		}
	}
	return m.Err
}

// trackDescriptor reads a TrackDescriptor's process 3 (a
// ProcessDescriptor) and thread 4 (a ThreadDescriptor); a thread track sets
// its sequence's thread as a ThreadDescriptor packet does.
func (rd *reader) trackDescriptor(seq *sequence, hasSeq bool, m pbread.Msg) error {
	for m.Next() {
		if m.Type != pbread.Bytes {
			continue
		}
		switch m.Num {
		case 3:
			if err := rd.processDescriptor(m.Sub()); err != nil {
				return err
			}
		case 4:
			if err := rd.threadDescriptor(seq, m.Sub(), hasSeq && seq.valid); err != nil {
				return err
			}
		}
	}
	return m.Err
}

// threadDescriptor reads a ThreadDescriptor: pid 1, tid 2, thread_name 5,
// reference_timestamp_us 6. When sets is true it becomes the sequence's
// thread, whose StreamingProfilePackets count from its reference time.
func (rd *reader) threadDescriptor(seq *sequence, m pbread.Msg, sets bool) error {
	var pid, tid, ref uint64
	var name []byte
	hasPID, hasTID, hasName := false, false, false
	for m.Next() {
		switch m.Num {
		case 1:
			pid, hasPID = m.U, true
		case 2:
			tid, hasTID = m.U, true
		case 5:
			name, hasName = m.Val, true
		case 6:
			ref = m.U
		}
	}
	if m.Err != nil {
		return m.Err
	}
	p, t := int64(int32(pid)), int64(tid)
	if hasTID && hasName {
		rd.b.NameThread(t, string(name), prioDescriptor)
	}
	if hasPID && hasTID {
		rd.tidPID[t] = p
	}
	if sets {
		seq.pid, seq.tid, seq.hasThread = p, t, true
		seq.trackNs, seq.trackNsOK = mulSat(int64(ref), 1000), true
	}
	return nil
}

// processDescriptor reads a ProcessDescriptor: pid 1, cmdline 2,
// process_name 6.
func (rd *reader) processDescriptor(m pbread.Msg) error {
	var pid uint64
	var name, argv0 string
	for m.Next() {
		switch m.Num {
		case 1:
			pid = m.U
		case 2:
			if argv0 == "" && m.Type == pbread.Bytes {
				argv0 = string(m.Val)
			}
		case 6:
			name = string(m.Val)
		}
	}
	if m.Err != nil {
		return m.Err
	}
	if name == "" {
		name = argv0
	}
	if name != "" {
		rd.b.NameProcess(int64(int32(pid)), name, prioDescriptor)
	}
	return nil
}

// packagesList reads a PackagesList: packages {name 1, uid 2}.
func (rd *reader) packagesList(m pbread.Msg) error {
	for m.Next() {
		if m.Num != 1 || m.Type != pbread.Bytes {
			continue
		}
		e := m.Sub()
		var name string
		var uid uint64
		for e.Next() {
			switch e.Num {
			case 1:
				name = string(e.Val)
			case 2:
				uid = e.U
			}
		}
		if e.Err != nil {
			return e.Err
		}
		if _, dup := rd.packages[uid]; !dup {
			rd.packages[uid] = name
		}
	}
	return m.Err
}

// kindNames name what packets hold, by the field number of their content:
// the name of one, and of several.
var kindNames = map[uint32][2]string{
	0:   {"packet of sequence state only (interned data, defaults)", "packets of sequence state only (interned data, defaults)"},
	1:   {"ftrace event bundle", "ftrace event bundles"},
	2:   {"process tree", "process trees"},
	5:   {"Chrome event bundle", "Chrome event bundles"},
	6:   {"clock snapshot", "clock snapshots"},
	7:   {"system stats packet", "system stats"},
	9:   {"process stats packet", "process stats"},
	11:  {"track event", "track events"},
	33:  {"trace config", "trace configs"},
	34:  {"ftrace stats packet", "ftrace stats"},
	35:  {"trace stats packet", "trace stats"},
	36:  {"synchronization marker", "synchronization markers"},
	37:  {"heap profile", "heap profiles"},
	39:  {"Android log packet", "Android log packets"},
	43:  {"process descriptor", "process descriptors"},
	44:  {"thread descriptor", "thread descriptors"},
	45:  {"system info packet", "system info packets"},
	46:  {"trigger", "triggers"},
	47:  {"packages list", "packages lists"},
	49:  {"Perfetto metatrace packet", "Perfetto metatrace packets"},
	54:  {"streaming profile packet", "streaming profile packets"},
	56:  {"Java heap graph", "Java heap graphs"},
	60:  {"track descriptor", "track descriptors"},
	61:  {"module symbol", "module symbols"},
	64:  {"deobfuscation mapping", "deobfuscation mappings"},
	66:  {"perf sample", "perf samples"},
	67:  {"CPU info packet", "CPU info packets"},
	68:  {"smaps packet", "smaps packets"},
	69:  {"service event", "service events"},
	89:  {"trace UUID", "trace UUIDs"},
	135: {"stack sample", "stack samples"},
}

// kindName names n packets of content num.
func kindName(num uint32, n int64) string {
	names, ok := kindNames[num]
	if !ok {
		names = [2]string{fmt.Sprintf("packet of field %d", num), fmt.Sprintf("packets of field %d", num)}
	}
	if n == 1 {
		return names[0]
	}
	return names[1]
}

// notes tells, once, what the reader skipped or could not use.
func (rd *reader) notes() {
	st := &rd.st
	b := rd.b
	if st.invalidSkipped > 0 {
		n := st.invalidSkipped
		b.Note("%s skipped: %s sequence's interned data was lost (a packet dropped before %s) or never started (no SEQ_INCREMENTAL_STATE_CLEARED yet), as trace_processor skips %[3]s",
			units.Plural(n, "stack sample was", "stack samples were"), units.Agree(n, "its", "their"), units.Agree(n, "it", "them"))
	}
	for _, id := range slices.Sorted(maps.Keys(st.clockDropped)) {
		n := st.clockDropped[id]
		if id == 0 {
			b.Note("%s skipped: %s on a sequence-scoped clock but %s no sequence", units.Plural(n, "stack sample was", "stack samples were"),
				units.Agree(n, "its timestamp is", "their timestamps are"), units.Agree(n, "it has", "they have"))
			continue
		}
		b.Note("%s skipped: no clock snapshot relates %s clock (%s) to the trace clock (%s), and no offset is assumed",
			units.Plural(n, "stack sample was", "stack samples were"), units.Agree(n, "its", "their"), clockName(id), clockName(rd.clocks.trace.id))
	}
	if st.lostRecords > 0 {
		b.Note("the kernel's ring buffers lost %s (samples among them)", units.Plural(st.lostRecords, "record", "records"))
	}
	if st.guardrail > 0 {
		b.Note("traced_perf stopped early: a guardrail (memory or CPU limit) was hit")
	}
	if st.notInScope > 0 {
		b.Note("%s of processes outside the profiler's scope %s not read", units.Plural(st.notInScope, "perf sample", "perf samples"), units.Agree(st.notInScope, "was", "were"))
	}
	if st.counterOnly > 0 {
		b.Note("%s without a call stack (counter values only) %s not read", units.Plural(st.counterOnly, "perf sample", "perf samples"), units.Agree(st.counterOnly, "was", "were"))
	}
	if st.streamNoDelta > 0 {
		b.Note("%s no time delta and %s not read", units.Plural(st.streamNoDelta, "streaming profile sample had", "streaming profile samples had"), units.Agree(st.streamNoDelta, "was", "were"))
	}
	if st.streamNoThread > 0 {
		n := st.streamNoThread
		b.Note("%s before %s sequence's thread descriptor: %s from 0", units.Plural(n, "streaming profile sample came", "streaming profile samples came"),
			units.Agree(n, "its", "their"), units.Agree(n, "its time counts", "their times count"))
	}
	if st.negativeStreams > 0 {
		b.Note("%s times before 0 and %s not read", units.Plural(st.negativeStreams, "streaming profile packet had", "streaming profile packets had"), units.Agree(st.negativeStreams, "was", "were"))
	}
	if st.noCallstack > 0 {
		b.Note("%s without a call stack %s not read", units.Plural(st.noCallstack, "stack sample", "stack samples"), units.Agree(st.noCallstack, "was", "were"))
	}
	if st.dataLoss > 0 {
		b.Note("the trace says packets were lost %s (previous_packet_dropped)", units.Agree(st.dataLoss, "once", units.Count(st.dataLoss)+" times"))
	}
	if st.zstdBundles > 0 {
		b.Note("%s of zstd-compressed packets %s not read (only deflate is); trace_processor reads %s", units.Plural(st.zstdBundles, "bundle", "bundles"),
			units.Agree(st.zstdBundles, "was", "were"), units.Agree(st.zstdBundles, "it", "them"))
	}
	if st.nestedBundles > 0 {
		b.Note("%s of compressed packets inside compressed packets %s not read", units.Plural(st.nestedBundles, "bundle", "bundles"), units.Agree(st.nestedBundles, "was", "were"))
	}
	if st.noSeqNeeds > 0 || st.seqScopedNoSeq > 0 || st.noSeqState > 0 {
		n := st.noSeqNeeds + st.seqScopedNoSeq + st.noSeqState
		b.Note("%s a packet sequence %s", units.Plural(n, "packet needed", "packets needed"), units.Agree(n, "it does not have", "they do not have"))
	}
	for _, d := range slices.Sorted(maps.Keys(st.weightsIgnored)) {
		n := st.weightsIgnored[d]
		b.Note("%s weighted on %s, not in ns: %s not read", units.Plural(n, "stack sample is", "stack samples are"), d, units.Agree(n, "its weight was", "their weights were"))
	}
}
