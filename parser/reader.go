package parser

import (
	"encoding/binary"
	"io"
)

// Reader pulls method records from a [File] in file order. Each call to
// ReadRecord decodes one record from a reused buffer: no allocation per record.
type Reader struct {
	f         *File
	s         *source
	end       int64
	version   int // record layout: 1, 2 or 3
	streaming bool
	recSize   int
	clock     Clock
	v2        *v2Reader // ART V2: LEB128 records in event blocks

	// A streaming file opened without a scan (Options.SkipStreamingScan)
	// has its definitions applied to h and reported here, and its counts
	// set in h at the end.
	h       *Header
	inBand  bool
	defs    []Definition // met by the current call
	at      int          // records the current call has read so far
	records int64        // records read
	lost    int64        // bytes of an item that the summary cuts off
	early   int64        // the offset of a summary met before the end, or 0
	ignored int64        // the bytes after that summary
}

// NewReader returns a reader positioned at the first record. A File may
// have several readers, one after the other or at once (but see
// Options.SkipStreamingScan).
func (f *File) NewReader() *Reader {
	h := f.Header
	r := &Reader{
		f:         f,
		s:         newSource(f.ra, f.size, h.DataOffset),
		end:       h.DataEnd,
		version:   h.RecordVersion,
		streaming: h.Variant == Streaming,
		recSize:   h.RecordSize,
		clock:     h.Clock,
		h:         h,
		inBand:    h.inBand,
	}
	if h.v2 != nil {
		r.v2 = newV2Reader(h)
	}
	return r
}

// Records returns the number of records the reader has read. At the end of
// a streaming file read without a scan (Options.SkipStreamingScan), the
// first reader's count is the file's, which it also sets in
// Header.Records for later readers.
func (r *Reader) Records() int64 { return r.records }

// LostBytes returns the bytes at the end of the records that do not form
// a whole record or item: the Header's count, or, for the first reader of
// a streaming file read without a scan, the count it found on reaching
// the end (which it also sets in Header.LostBytes for later readers).
func (r *Reader) LostBytes() int64 {
	if r.inBand {
		return r.lost
	}
	return r.h.LostBytes
}

// Offset returns the offset of the next byte the reader will decode.
func (r *Reader) Offset() int64 { return r.s.pos() }

// ReadRecord reads the next record into rec, or returns io.EOF after the last
// whole one. Filling the caller's Record, rather than returning one, keeps
// the per-record cost to the decoding itself.
func (r *Reader) ReadRecord(rec *Record) error {
	r.defs, r.at = r.defs[:0], 0
	if r.v2 != nil {
		return r.v2.next(r.s, rec)
	}
	// Fast path: a whole record in the buffer, not a streaming special item.
	s := r.s
	if off := s.pos(); !referenceOnly && off+int64(r.recSize) <= r.end && s.w-s.r >= r.recSize && !(r.streaming && s.buf[s.r]|s.buf[s.r+1] == 0) {
		r.decode(s.buf[s.r:s.r+r.recSize], off, rec)
		s.r += r.recSize
		r.records++
		return nil
	}
	return r.readSlow(rec)
}

// Definitions returns the method and thread definitions that the last
// ReadRecord or ReadRecords call met, in file order, each with the number of
// the records it read before it (Definition.At): where the Header's tables
// changed. There are some only in a streaming file opened with
// Options.SkipStreamingScan, and the Reader has applied them to the Header
// already, when it met them: a record read before a definition may so find
// its method or thread defined, or not, depending on when it is looked up.
// The slice is reused by the next call.
func (r *Reader) Definitions() []Definition { return r.defs }

// ReadRecords reads up to len(recs) records into recs and returns how many it
// read; at the end it returns 0 and io.EOF. Decoding a batch in one call
// keeps the per-record cost of a large trace to the decoding itself.
func (r *Reader) ReadRecords(recs []Record) (int, error) {
	r.defs = r.defs[:0]
	if r.v2 != nil {
		return r.v2.batch(r.s, recs)
	}
	n := 0
	for n < len(recs) {
		if !referenceOnly {
			n += r.decodeBuffered(recs[n:])
		}
		if n == len(recs) {
			break
		}
		r.at = n
		if err := r.readSlow(&recs[n]); err != nil {
			if n > 0 && err == io.EOF {
				return n, nil
			}
			return n, err
		}
		n++
	}
	return n, nil
}

// decodeBuffered decodes the whole records that lie in the buffer, up to
// len(recs), and stops before a streaming special item. A loop per layout
// keeps the layout switch and the calls out of the per-record work. The
// fields are stored one by one: as of Go 1.26, a struct literal is built
// on the stack and copied in 16-byte moves, which stall on the narrower
// stores that built it (store-to-load forwarding fails)
// (BenchmarkReadRecords).
func (r *Reader) decodeBuffered(recs []Record) int {
	s := r.s
	off := s.pos()
	size := r.recSize
	k := min(len(recs), (s.w-s.r)/size)
	if left := r.end - off; left < int64(k)*int64(size) {
		k = int(max(left, 0) / int64(size))
	}
	b := s.buf[s.r : s.r+k*size]
	recs = recs[:k]
	switch r.version {
	case 1:
		for i := range recs {
			rec := b[i*size : i*size+9]
			if r.streaming && rec[0]|rec[1] == 0 {
				k = i
				break
			}
			word := binary.LittleEndian.Uint32(rec[1:])
			out := &recs[i]
			out.Offset, out.Thread = off+int64(i*size), ThreadID(rec[0])
			out.Method, out.Action = MethodID(word&^3), Action(word&3)
			out.CPU, out.Wall = oneClock(r.clock, binary.LittleEndian.Uint32(rec[5:]))
		}
	case 2:
		for i := range recs {
			rec := b[i*size : i*size+10]
			tid := binary.LittleEndian.Uint16(rec)
			if r.streaming && tid == 0 { // a special item, not a record
				k = i
				break
			}
			word := binary.LittleEndian.Uint32(rec[2:])
			out := &recs[i]
			out.Offset, out.Thread = off+int64(i*size), ThreadID(tid)
			out.Method, out.Action = MethodID(word&^3), Action(word&3)
			out.CPU, out.Wall = oneClock(r.clock, binary.LittleEndian.Uint32(rec[6:]))
		}
	default:
		for i := range recs {
			rec := b[i*size : i*size+14]
			tid := binary.LittleEndian.Uint16(rec)
			if r.streaming && tid == 0 { // a special item, not a record
				k = i
				break
			}
			word := binary.LittleEndian.Uint32(rec[2:])
			out := &recs[i]
			out.Offset, out.Thread = off+int64(i*size), ThreadID(tid)
			out.Method, out.Action = MethodID(word&^3), Action(word&3)
			out.CPU = uint64(binary.LittleEndian.Uint32(rec[6:]))
			out.Wall = uint64(binary.LittleEndian.Uint32(rec[10:]))
		}
		// A dual-clock layout read for one clock (--clock) keeps that one.
		if !r.clock.HasCPU() || !r.clock.HasWall() {
			for i := range recs[:k] {
				r.keepClocks(&recs[i])
			}
		}
	}
	s.r += k * size
	r.records += int64(k)
	return k
}

// keepClocks clears the times of the clocks the trace is not read for.
func (r *Reader) keepClocks(rec *Record) {
	if !r.clock.HasCPU() {
		rec.CPU = 0
	}
	if !r.clock.HasWall() {
		rec.Wall = 0
	}
}

// readSlow refills the buffer and skips streaming special items, reporting
// the definitions among them when the file was not scanned.
func (r *Reader) readSlow(rec *Record) error {
	for {
		off := r.s.pos()
		if off >= r.end {
			r.reachedEnd()
			return io.EOF
		}
		if r.streaming && isSpecial(r.s.peek(2)) {
			op, n, err := specialItem(r.s)
			if err != nil {
				return err
			}
			if r.inBand && (n == 0 || off+n > r.end) {
				return r.cutAt(off)
			}
			if n == 0 {
				return io.ErrUnexpectedEOF
			}
			if r.inBand && op == opTraceSummary {
				// A summary before the last one: a scan stops at the
				// first, and so does this read (reachedEnd warns).
				r.early, r.ignored, r.end = off, r.s.size-(off+n), off
				continue
			}
			if r.inBand && (op == opNewMethod || op == opNewThread) {
				d, err := parseDefinition(r.s, op, off, n)
				if err != nil {
					return err
				}
				d.At = r.at
				r.h.Define(d)
				r.defs = append(r.defs, d)
			}
			r.s.skip(n)
			continue
		}
		if r.inBand && off+int64(r.recSize) > r.end {
			return r.cutAt(off)
		}
		b := r.s.peek(r.recSize)
		if len(b) < r.recSize {
			if r.s.err != nil {
				return r.s.err
			}
			if r.f.grow != nil {
				r.grown()
				continue
			}
			return io.ErrUnexpectedEOF // the input shrank under us
		}
		r.decode(b, off, rec)
		r.s.skip(int64(r.recSize))
		r.records++
		return nil
	}
}

// cutAt ends the read of a file that was not scanned at an item that runs
// into the summary: its bytes are lost, as those of an item cut off by the
// end of the file are in a scanned one.
func (r *Reader) cutAt(off int64) error {
	r.lost, r.end = r.end-off, off
	r.reachedEnd()
	return io.EOF
}

// reachedEnd completes the header of a file that was not scanned when the
// first of its readers reaches the end: readers made after that find the
// counts and the end there, and skip the definitions, which the first
// reported.
func (r *Reader) reachedEnd() {
	if !r.inBand || !r.h.inBand {
		return
	}
	h := r.h
	h.Records, h.DataEnd, h.LostBytes = r.records, r.end, r.lost
	if r.early > 0 {
		h.warn("ignored %d bytes after the streaming summary at offset %d; the clock and options are those of the summary at the end of the file",
			r.ignored, r.early)
	}
	h.inBand = false
}

// grown completes the header of a growing input (NewGrowingFile) when
// its first reader reaches the end, with what parseRegular would have set
// for its size.
func (r *Reader) grown() {
	f := r.f
	f.complete(nil)
	f.Header.setEnd(f.size)
	r.end = f.Header.DataEnd
}

// decode reads one record and keeps only the clocks the trace has.
func (r *Reader) decode(b []byte, off int64, rec *Record) {
	decodeRecord(b, r.version, r.clock, rec)
	r.keepClocks(rec)
	rec.Offset = off
}

// isSpecial reports whether a streaming item starts with thread id 0.
func isSpecial(b []byte) bool {
	return len(b) == 2 && binary.LittleEndian.Uint16(b) == 0
}
