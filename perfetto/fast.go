package perfetto

import (
	"encoding/binary"

	"github.com/atrace2/atrace2/internal/varint"
	"github.com/atrace2/atrace2/stream"
)

// The fast path writes the common event packets (a delta time, a one-byte
// sequence id, a method already interned, no annotation but the zero CPU
// time) with plain stores into the output buffer's spare room. It writes
// the same bytes as begin and end, which handle every other case, without
// their appends, which cost much of the exporter's time
// (BenchmarkExporterOnly).

// maxFastPacket bounds a fast packet: its tag, a one-byte length and a
// body whose every length fits one byte.
const maxFastPacket = 64

// fastRun writes events with the fast encodings until one needs the
// general ones, and returns how many it wrote. It flushes the output
// between the runs of fastPackets, whose loop calls nothing.
func (e *Exporter) fastRun(evs []stream.Event) int {
	done := 0
	for {
		done += e.fastPackets(evs[done:])
		if done == len(evs) || len(e.out) < flushSize || e.err != nil {
			return done
		}
		e.flush()
	}
}

// wordSlack is the room past a fast packet that its whole-word stores may
// write into (and the next packet overwrites).
const wordSlack = 8

// fastPackets writes the events at the start of evs with the fast
// encodings, until one needs the general ones or the output reaches
// flushSize, and returns how many it wrote. Its loop keeps the output
// buffer in a local and calls nothing: as of Go 1.26, calls cost spills
// and reloads around them (BenchmarkExporterOnly). Fixed runs of bytes go
// in one store of a word.
func (e *Exporter) fastPackets(evs []stream.Event) int {
	out := e.out
	if e.err != nil {
		return 0
	}
	limit := min(flushSize, cap(out)-maxFastPacket-wordSlack)
	threads, listed := e.threads, e.listed
	counter, cpuTimeline := e.counter, e.cpuTimeline
	i := 0
	for ; i < len(evs) && len(out) < limit; i++ {
		ev := &evs[i]
		if int(ev.Thread) >= len(threads) || threads[ev.Thread].seq == 0 { // its sequence is not started
			break
		}
		th := &threads[ev.Thread]
		ts, cpu := ev.Wall/1000, ev.CPU/1000
		if cpuTimeline {
			ts = cpu
		}
		d := ts - th.ts
		// Deep frames (folding), times that go back and sequence ids past
		// one byte take the general path.
		if ev.Depth >= MaxDepth-1 || d < 0 || th.seq >= 0x80 {
			break
		}
		p := out[len(out) : len(out)+maxFastPacket+wordSlack]
		p[0], p[2] = tagTracePacket, tagTimestamp
		n := varint.PutUvarint(p, 3, uint64(d))
		binary.LittleEndian.PutUint64(p[n:], th.fields) // sequence id and flags, the track event's tag
		te := n + 6                                     // the track event's body, after its length
		switch {
		case ev.Kind == stream.Begin && ev.Flags&(stream.Synthetic|stream.Cut) == 0 && th.interned.denseHas(ev.Frame) &&
			len(th.open) < cap(th.open):
			// A method already interned on the sequence (in its bitset),
			// and room for the slice in th.open (begin grows it).
			iid := uint64(ev.Frame) + 1
			binary.LittleEndian.PutUint32(p[te:], tagEventType|typeSliceBegin<<8|tagNameIID<<16)
			n = varint.PutUvarint(p, te+3, iid)
			if counter {
				p[n] = tagCounterValue
				n = varint.PutUvarint(p, n+1, uint64(cpu-th.cpu))
				th.cpu = cpu
			}
			if listed[ev.Frame] {
				binary.LittleEndian.PutUint16(p[n:], tagSourceIID0|tagSourceIID1<<8)
				n = varint.PutUvarint(p, n+2, iid)
			}
			k := len(th.open)
			th.open = th.open[:k+1]
			th.open[k] = openSlice{ts: ts, cpu: cpu}
		case ev.Kind == stream.End && ev.Flags == 0:
			var o openSlice
			if k := len(th.open); k > 0 {
				o = th.open[k-1]
				th.open = th.open[:k-1]
			}
			binary.LittleEndian.PutUint16(p[te:], tagEventType|typeSliceEnd<<8)
			n = te + 2
			if counter {
				p[n] = tagCounterValue
				n = varint.PutUvarint(p, n+1, uint64(cpu-th.cpu))
				th.cpu = cpu
				if cpu == o.cpu && ts > o.ts { // appendAnnotation(annCPU, fieldInt, 0)
					binary.LittleEndian.PutUint64(p[n:], tagAnnotation|4<<8|tagAnnNameIID<<16|annCPU<<24|tagAnnInt<<32)
					n += 6
				}
				// offCPU inlined: calls cost spills in this loop.
				incl := (ts - o.ts) - (cpu - o.cpu)
				if k := len(th.open); k > 0 {
					th.open[k-1].child += incl
				}
				if off := incl - o.child; off > 0 { // appendAnnotation(annOffCPU, fieldInt, off)
					binary.LittleEndian.PutUint64(p[n:], tagAnnotation|tagAnnNameIID<<16|annOffCPU<<24|tagAnnInt<<32)
					m := varint.PutUvarint(p, n+5, uint64(off))
					p[n+1] = byte(m - n - 2)
					n = m
				}
			}
		default:
			e.out, e.events = out, e.events+int64(i)
			return i
		}
		p[te-1], p[1] = byte(n-te), byte(n-2)
		out = out[:len(out)+n]
		th.ts = ts
	}
	e.out, e.events = out, e.events+int64(i)
	return i
}
