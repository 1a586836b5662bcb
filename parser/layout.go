package parser

import (
	"fmt"
	"math"
	"os"
	"time"
)

// parseRegular reads a file that starts with key text: a regular trace, or a
// NAME.key/NAME.data pair read as one.
func (f *File) parseRegular(s *source, h *Header, opt Options) error {
	p := keyParser{h: h}
	for !p.done {
		off := s.pos()
		line, ok := s.line()
		if !ok {
			if s.err != nil {
				return s.err
			}
			if !p.sawVersion {
				return formatErr(off, "expected key text with a *version line (a file starting with '*' that is not a method trace?)")
			}
			return formatErr(off, "the key text ends without an *end line: the file is cut short or is not a method trace")
		}
		if err := p.line(line, off); err != nil {
			return err
		}
	}
	if !p.sawVersion {
		return formatErr(0, "key text: expected a *version line before *end")
	}
	if f.grow != nil && len(s.peek(dataHeaderSize)) < dataHeaderSize {
		f.complete(s) // cut short: parseDataHeader says how
	}
	dh, err := parseDataHeader(s, s.pos())
	if err != nil {
		return err
	}
	if dh.v2 {
		f.complete(s)
	}
	if dh.version&streamingBit == streamingBit {
		return formatErr(s.pos()+4, "streaming data version %#x after key text: expected 1, 2 or 3", dh.version)
	}
	if dh.v2 {
		return f.parseV2(s, h, opt, dh, V2Hybrid)
	}
	h.Variant = Regular
	if f.pair {
		h.Variant = SplitPair
	}
	h.setLayout(dh)
	if f.grow != nil {
		// Read on as it grows once the first record's byte is in; an
		// input that ends before has its size known.
		var b [1]byte
		if n, _ := f.ra.ReadAt(b[:], h.DataOffset); n == 0 {
			f.complete(s)
		}
	}
	if f.grow != nil {
		h.DataEnd = math.MaxInt64 // until the first Reader meets the end (setEnd)
	} else if h.DataOffset > f.size {
		return formatErr(h.DataOffset-dh.dataOffset+6, "data offset points past the end of the file")
	} else {
		h.setEnd(f.size)
	}
	if h.KeyVersion != h.RecordVersion {
		h.warn("the key text says version %d but the data header says %d; the data header decides the record layout", h.KeyVersion, h.RecordVersion)
	}
	if err := h.applyClock("key text"); err != nil {
		return err
	}
	return h.settleClock(opt)
}

// parseSLOW reads a file that starts with the data header: a streaming
// trace, or a .data half whose key is missing.
func (f *File) parseSLOW(s *source, h *Header, opt Options) error {
	dh, err := parseDataHeader(s, 0)
	if err != nil {
		return err
	}
	if dh.v2 {
		return f.parseV2(s, h, opt, dh, V2Regular)
	}
	if dh.version&streamingBit == 0 {
		return formatErr(0, "SLOW data version %d without key text: this is the .data half of a NAME.key/NAME.data pair (put NAME.key beside it) or a trace stripped of its key", dh.version)
	}
	h.Variant = Streaming
	h.setLayout(dh)
	s.skip(h.DataOffset)
	if opt.SkipStreamingScan && opt.KeyFile == "" {
		found, err := findSummary(s, h)
		if err != nil {
			return err
		}
		if found {
			if err := h.applyClock("summary"); err != nil {
				return err
			}
			return h.settleClock(opt)
		}
	}
	if err := scanStreaming(s, h); err != nil {
		return err
	}
	keyFile := opt.KeyFile
	if keyFile == "" && !h.HasSummary && f.Name != "-" && exists(f.Name+".sec") {
		keyFile = f.Name + ".sec"
	}
	switch {
	case keyFile != "":
		if err := h.mergeKeyFile(keyFile); err != nil {
			return err
		}
		if err := h.applyClock(keyFile); err != nil {
			return err
		}
	case h.HasSummary:
		if err := h.applyClock("summary"); err != nil {
			return err
		}
	default:
		// Android 6-7 wrote the summary to NAME.sec; a killed app leaves
		// none. The record size frames the records; 14 bytes hold two clocks.
		h.Clock, h.ClockFrom = ClockWall, inferredClock
		if h.RecordSize >= minRecordSize[3] {
			h.Clock = ClockDual
		}
		if opt.Clock == ClockUnknown {
			h.warn("the streaming summary is missing (an Android 6-7 trace without its .sec file, or a killed app): clock %s inferred from the %d-byte records; --clock overrides it", h.Clock, h.RecordSize)
		}
	}
	return h.settleClock(opt)
}

// setEnd sets where the whole records of a regular trace of size bytes
// end.
func (h *Header) setEnd(size int64) {
	whole := (size - h.DataOffset) / int64(h.RecordSize)
	h.Records = whole
	h.DataEnd = h.DataOffset + whole*int64(h.RecordSize)
	h.LostBytes = size - h.DataEnd
}

func (h *Header) setLayout(dh dataHeader) {
	h.DataVersion = dh.version
	h.RecordVersion = dh.version &^ streamingBit
	h.RecordSize = dh.recordSize
	h.StartTime = dh.start
	h.DataOffset = dh.dataOffset
	h.TimeUnit, h.TimeBits = time.Microsecond, 32
}

func (h *Header) warn(format string, args ...any) {
	h.Warnings = append(h.Warnings, fmt.Sprintf(format, args...))
}

// mergeKeyFile reads key text from a side file (.sec): its options, and the
// threads and methods the trace itself did not define. It reads up to the
// *end line, at most MaxKeyText bytes.
func (h *Header) mergeKeyFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	k := &Header{}
	if err := parseKeyReader(k, f, 0, "key file"); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	h.mergeKey(k)
	return nil
}

// mergeKey takes the key text read apart in k (a .sec file, ART V2's
// summary): its version, its options after h's, and the threads and
// methods h does not define.
func (h *Header) mergeKey(k *Header) {
	h.KeyVersion = k.KeyVersion
	h.Options = append(h.Options, k.Options...)
	for _, t := range k.Threads {
		if _, ok := h.Thread(t.ID); !ok {
			h.addThread(t)
		}
	}
	for _, m := range k.Methods {
		if _, ok := h.Method(m.ID); !ok {
			h.addMethod(m)
		}
	}
}

// inferredClock is ClockFrom for a clock guessed from the record size.
const inferredClock = "record size (no summary)"

// subClock reports whether clock a reads a subset of the times b records.
func subClock(a, b Clock) bool {
	return a == b || b == ClockDual && (a == ClockWall || a == ClockThreadCPU)
}

// ClockError says that --clock asked for a clock the trace does not record.
type ClockError struct{ Have, Want Clock }

func (e *ClockError) Error() string {
	return "the trace records the " + e.Have.String() + " clock; it has no " + e.Want.String() + " times to read"
}

// settleClock applies --clock and checks the clock against the record
// layout: a single-time record cannot carry two clocks.
func (h *Header) settleClock(opt Options) error {
	if opt.Clock != ClockUnknown && !subClock(opt.Clock, h.Clock) {
		// The caller picks what it shows of the clocks the file records;
		// a clock that is not among them replaces a guessed one (no
		// summary), and is an error against one the file states.
		if h.ClockFrom != inferredClock && h.ClockFrom != inferredClockV2 {
			return &ClockError{Have: h.Clock, Want: opt.Clock}
		}
		h.Clock, h.ClockFrom = opt.Clock, "--clock"
	}
	if h.RecordVersion < 3 && h.Clock == ClockDual {
		return formatErr(h.DataOffset, "clock dual needs two times per record, but data version %d records hold one (%d bytes); use --clock wall or --clock thread-cpu", h.RecordVersion, h.RecordSize)
	}
	if h.RecordVersion == 3 && h.Clock != ClockDual && opt.Clock == ClockUnknown {
		h.warn("version 3 records hold two times but the clock is %s; reading only that one (--clock dual reads both)", h.Clock)
	}
	return nil
}
