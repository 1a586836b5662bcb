package perfetto

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	pb "github.com/atrace2/atrace2/proto"
)

// Clock ids (ClockSnapshot.Clock.clock_id): 1-63 are Perfetto's built-in
// clocks, 64-127 are scoped to the sequence that defines them.
const (
	clockRealtime = 1
	clockBoottime = 6
	clockMicros   = 64 // our incremental µs clock, one per sequence
)

// Sequence flags (TracePacket.sequence_flags).
const (
	seqCleared = 1 // SEQ_INCREMENTAL_STATE_CLEARED
	seqNeeds   = 2 // SEQ_NEEDS_INCREMENTAL_STATE: uses interning or defaults
)

// processSeq is the sequence of the process track.
const processSeq = 1

// cpuTimelineNote describes tracks laid out on thread-CPU time.
const cpuTimelineNote = "The trace has no wall clock: the timeline is each thread's CPU time since its first event, " +
	"so slices of different threads do not line up in time and time spent blocked does not show."

// processUUID, threadUUID and counterUUID number the tracks: the process,
// then a thread track and its thread-time counter per thread.
func (e *Exporter) processUUID() uint64      { return e.uuidBase }
func (e *Exporter) threadUUID(i int) uint64  { return e.uuidBase + 1 + 2*uint64(i) }
func (e *Exporter) counterUUID(i int) uint64 { return e.uuidBase + 2 + 2*uint64(i) }

// writeProcess writes the process track on its own sequence.
func (e *Exporter) writeProcess() error {
	name := e.opt.ProcessName
	if name == "" {
		name = DefaultProcessName(e.t.Name)
	}
	td := &pb.TrackDescriptor{
		Uuid:    proto.Uint64(e.processUUID()),
		Process: &pb.ProcessDescriptor{Pid: proto.Int32(e.pid), ProcessName: proto.String(name)},
	}
	if e.cpuTimeline {
		td.Description = proto.String(cpuTimelineNote)
	}
	return e.marshal(&pb.TracePacket{
		TrustedPacketSequenceId: proto.Uint32(processSeq),
		Data:                    &pb.TracePacket_TrackDescriptor{TrackDescriptor: td},
	})
}

// writeThreadStart writes the first packets of thread i's sequence: the
// incremental state (defaults, clocks, interned annotations), the thread
// track and, with two clocks, the thread-time counter track.
func (e *Exporter) writeThreadStart(i int) error {
	seq := e.threads[i].seq
	if err := e.marshal(e.firstPacket(i)); err != nil {
		return err
	}
	th := &e.tables.Threads[i]
	td := &pb.TrackDescriptor{
		Uuid: proto.Uint64(e.threadUUID(i)),
		Thread: &pb.ThreadDescriptor{
			Pid:        proto.Int32(e.pid),
			Tid:        proto.Int64(int64(th.ID)),
			ThreadName: proto.String(th.Name),
		},
	}
	if e.cpuTimeline {
		td.Description = proto.String(cpuTimelineNote)
	}
	err := e.marshal(&pb.TracePacket{
		TrustedPacketSequenceId: proto.Uint32(seq),
		Data:                    &pb.TracePacket_TrackDescriptor{TrackDescriptor: td},
	})
	if err != nil || !e.counter {
		return err
	}
	return e.marshal(&pb.TracePacket{
		TrustedPacketSequenceId: proto.Uint32(seq),
		Data: &pb.TracePacket_TrackDescriptor{TrackDescriptor: &pb.TrackDescriptor{
			Uuid:       proto.Uint64(e.counterUUID(i)),
			ParentUuid: proto.Uint64(e.threadUUID(i)),
			Counter: &pb.CounterDescriptor{
				Type:           pb.CounterDescriptor_COUNTER_THREAD_TIME_NS.Enum(),
				UnitMultiplier: proto.Int64(1000),
				IsIncremental:  proto.Bool(true),
			},
		}},
	})
}

// firstPacket clears the sequence's incremental state and sets it up. A
// packet holding a clock snapshot carries no other payload, but its defaults
// and interned data are applied.
func (e *Exporter) firstPacket(i int) *pb.TracePacket {
	defaults := &pb.TrackEventDefaults{TrackUuid: proto.Uint64(e.threadUUID(i))}
	if e.counter {
		defaults.ExtraCounterTrackUuids = []uint64{e.counterUUID(i)}
	}
	clocks := []*pb.ClockSnapshot_Clock{
		{ClockId: proto.Uint32(clockBoottime), Timestamp: proto.Uint64(uint64(e.baseNs))},
		{
			ClockId: proto.Uint32(clockMicros), Timestamp: proto.Uint64(uint64(e.baseNs / 1000)),
			IsIncremental: proto.Bool(true), UnitMultiplierNs: proto.Uint64(1000),
		},
	}
	if e.epochStart() {
		clocks = append(clocks, &pb.ClockSnapshot_Clock{
			ClockId: proto.Uint32(clockRealtime), Timestamp: proto.Uint64(uint64(e.baseNs)),
		})
	}
	interned := staticInterned()
	if e.counter {
		interned.DebugAnnotationNames = append(interned.DebugAnnotationNames, &pb.DebugAnnotationName{
			Iid: proto.Uint64(annOffCPU), Name: proto.String(offCPUName),
		})
	}
	return &pb.TracePacket{
		TrustedPacketSequenceId: proto.Uint32(e.threads[i].seq),
		SequenceFlags:           proto.Uint32(seqCleared),
		FirstPacketOnSequence:   proto.Bool(true),
		TracePacketDefaults: &pb.TracePacketDefaults{
			TimestampClockId:   proto.Uint32(clockMicros),
			TrackEventDefaults: defaults,
		},
		Data:         &pb.TracePacket_ClockSnapshot{ClockSnapshot: &pb.ClockSnapshot{Clocks: clocks}},
		InternedData: interned,
	}
}

// epochStart reports whether the start time is a Unix epoch time: Dalvik
// wrote gettimeofday, ART a monotonic clock (docs/outputs.md §2.5). A start after
// 2001 in µs cannot be an uptime either.
func (e *Exporter) epochStart() bool {
	return e.baseNs > 0 && (e.t.Process.Epoch || e.baseNs/1000 > 1e15)
}

// marshal appends a packet built from the generated types.
func (e *Exporter) marshal(p *pb.TracePacket) error {
	var err error
	e.pkt, err = proto.MarshalOptions{}.MarshalAppend(e.pkt[:0], p)
	if err != nil {
		return fmt.Errorf("encoding perfetto packet: %w", err)
	}
	e.appendPacket(e.pkt)
	return nil
}
