package perfetto

import (
	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/internal/varint"
)

// fastPath enables fastRun; tests turn it off to compare.
var fastPath = true

// The fast path writes the common event packets (a delta time, a one-byte
// sequence id, a method already interned, no annotation but the zero CPU
// time) with plain stores into the output buffer's spare room. It writes
// the same bytes as begin and end, which handle every other case; the
// appends of those cost about a third of the exporter's time.

// maxFastPacket bounds a fast packet: its tag, a one-byte length and a
// body whose every length fits one byte.
const maxFastPacket = 64

// packet is the room a fast packet is written into.
type packet = []byte

// fastRun writes events with the fast encodings until one needs the
// general ones, and returns how many it wrote. Its loop keeps the output
// buffer in a local and calls nothing per event: calls and reloads of the
// exporter's fields cost a third of the time when each event went through
// Event.
func (e *Exporter) fastRun(evs []stream.Event) int {
	out := e.out
	counter, cpuTimeline := e.counter, e.cpuTimeline
	for i := range evs {
		if len(out) >= flushSize {
			e.out = out
			e.flush()
			out = e.out
		}
		ev := &evs[i]
		if int(ev.Thread) >= len(e.threads) { // its sequence is not started
			e.out = out
			return i
		}
		th := &e.threads[ev.Thread]
		ts, cpu := ev.Wall/1000, ev.CPU/1000
		if cpuTimeline {
			ts = cpu
		}
		d := ts - th.ts
		// Deep frames (folding), times that go back, sequence ids past one
		// byte, a buffer without room and an earlier write error all take
		// the general path.
		if ev.Depth >= MaxDepth-1 || d < 0 || th.seq >= 0x80 || cap(out)-len(out) < maxFastPacket || e.err != nil {
			e.out = out
			return i
		}
		p := out[len(out):][:maxFastPacket]
		p[0], p[2] = tagTracePacket, tagTimestamp
		n := varint.Put(p, 3, uint64(d))
		p[n], p[n+1], p[n+2], p[n+3] = tagSequenceID, byte(th.seq), tagSequenceFlags, seqNeeds
		p[n+4] = tagTrackEvent
		te := n + 6 // the track event's body
		switch {
		case ev.Kind == stream.Begin && ev.Flags&stream.Synthetic == 0 && th.isInterned(ev.Frame):
			// A method already interned on the sequence.
			iid := uint64(ev.Frame) + 1
			p[te], p[te+1], p[te+2] = tagEventType, typeSliceBegin, tagNameIID
			n = varint.Put(p, te+3, iid)
			if counter {
				p[n] = tagCounterValue
				n = varint.Put(p, n+1, uint64(cpu-th.cpu))
				th.cpu = cpu
			}
			if e.known[ev.Frame] {
				p[n], p[n+1] = tagSourceIID0, tagSourceIID1
				n = varint.Put(p, n+2, iid)
			}
			th.open = append(th.open, openSlice{ts, cpu})
		case ev.Kind == stream.End && ev.Flags == 0:
			var o openSlice
			if k := len(th.open); k > 0 {
				o = th.open[k-1]
				th.open = th.open[:k-1]
			}
			p[te], p[te+1] = tagEventType, typeSliceEnd
			n = te + 2
			if counter {
				p[n] = tagCounterValue
				n = varint.Put(p, n+1, uint64(cpu-th.cpu))
				th.cpu = cpu
				if cpu == o.cpu && ts > o.ts { // appendAnnotation(annCPU, fieldInt, 0)
					p[n], p[n+1], p[n+2], p[n+3], p[n+4], p[n+5] = tagAnnotation, 4, tagAnnNameIID, annCPU, tagAnnInt, 0
					n += 6
				}
			}
		default:
			e.out = out
			return i
		}
		p[te-1], p[1] = byte(n-te), byte(n-2)
		out = out[:len(out)+n]
		th.ts = ts
		e.events++
	}
	e.out = out
	return len(evs)
}
