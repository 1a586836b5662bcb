package perfetto

import "github.com/atrace2/atrace2/convert/stream"

// fastPath enables beginFast and endFast; tests turn it off to compare.
var fastPath = true

// The fast paths write the common event packets (a delta time, a one-byte
// sequence id, a method already interned, no annotation but the zero CPU
// time) with plain stores into the output buffer's spare room. They write
// the same bytes as begin and end, which handle every other case; the
// appends of those cost about a third of the exporter's time.

// maxFastPacket bounds a fast packet: its tag, a one-byte length and a
// body whose every length fits one byte.
const maxFastPacket = 64

// packet is the room a fast packet is written into.
type packet = []byte

// putVarint writes v at p[i:] and returns the index after it.
func putVarint(p packet, i int, v uint64) int {
	for v >= 0x80 {
		p[i] = byte(v) | 0x80
		v >>= 7
		i++
	}
	p[i] = byte(v)
	return i + 1
}

// fastStart makes room for a fast packet in the output buffer and writes
// its tag, its timestamp delta and its sequence; the caller fills in the
// length p[1] and the body from p[n]. It reports false when the packet
// needs the general encoding, or the buffer lacks room (the general path
// grows it).
func (e *Exporter) fastStart(th *thread, ts int64) (p packet, n int, ok bool) {
	d := ts - th.ts
	if d < 0 || th.seq >= 0x80 || cap(e.out)-len(e.out) < maxFastPacket {
		return nil, 0, false
	}
	p = e.out[len(e.out):][:maxFastPacket]
	p[0], p[2] = tagTracePacket, tagTimestamp
	n = putVarint(p, 3, uint64(d))
	p[n], p[n+1], p[n+2], p[n+3] = tagSequenceID, byte(th.seq), tagSequenceFlags, seqNeeds
	return p, n + 4, true
}

// beginFast writes a SLICE_BEGIN as begin does, for a method already
// interned on the sequence and a frame that is not synthetic.
func (e *Exporter) beginFast(th *thread, ev *stream.Event, ts, cpu int64) bool {
	if ev.Flags&stream.Synthetic != 0 || th.interned[ev.Frame/64]&(1<<(ev.Frame%64)) == 0 {
		return false
	}
	p, n, ok := e.fastStart(th, ts)
	if !ok {
		return false
	}
	iid := uint64(ev.Frame) + 1
	p[n] = tagTrackEvent
	te := n + 2 // the track event's body
	p[n+2], p[n+3], p[n+4] = tagEventType, typeSliceBegin, tagNameIID
	n = putVarint(p, n+5, iid)
	if e.counter {
		p[n] = tagCounterValue
		n = putVarint(p, n+1, uint64(cpu-th.cpu))
		th.cpu = cpu
	}
	if e.known[ev.Frame] {
		p[n], p[n+1] = tagSourceIID0, tagSourceIID1
		n = putVarint(p, n+2, iid)
	}
	p[te-1], p[1] = byte(n-te), byte(n-2)
	e.out = e.out[:len(e.out)+n]
	th.ts = ts
	th.open = append(th.open, openSlice{ts, cpu})
	return true
}

// endFast writes a SLICE_END as end does, for an end with no flags and no
// folded frames.
func (e *Exporter) endFast(th *thread, ev *stream.Event, ts, cpu int64) bool {
	if ev.Flags != 0 || ev.Depth == MaxDepth-1 && th.folded > 0 {
		return false
	}
	p, n, ok := e.fastStart(th, ts)
	if !ok {
		return false
	}
	var o openSlice
	if k := len(th.open); k > 0 {
		o = th.open[k-1]
		th.open = th.open[:k-1]
	}
	p[n] = tagTrackEvent
	te := n + 2
	p[n+2], p[n+3] = tagEventType, typeSliceEnd
	n += 4
	if e.counter {
		p[n] = tagCounterValue
		n = putVarint(p, n+1, uint64(cpu-th.cpu))
		th.cpu = cpu
		if cpu == o.cpu && ts > o.ts { // appendAnnotation(annCPU, fieldInt, 0)
			p[n], p[n+1], p[n+2], p[n+3], p[n+4], p[n+5] = tagAnnotation, 4, tagAnnNameIID, annCPU, tagAnnInt, 0
			n += 6
		}
	}
	p[te-1], p[1] = byte(n-te), byte(n-2)
	e.out = e.out[:len(e.out)+n]
	th.ts = ts
	return true
}
