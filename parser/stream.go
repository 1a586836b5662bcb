package parser

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"strconv"
)

// Streaming item opcodes (ART runtime/trace.cc kOpNewMethod…; docs/formats.md §8.1).
// A streaming item whose first u2 (the thread id of a record) is 0 is one of
// these; any other item is a record of the header's record size.
const (
	opNewMethod    = 1 // u2 len, then one *methods line including its '\n'
	opNewThread    = 2 // u2 thread id, u2 len, then the name
	opTraceSummary = 3 // u4 len, then the key text; the last item in the file
)

// specialItem measures the special item at the cursor. It returns its
// opcode and total length, or n == 0 when the item is cut off by the end of
// the input.
func specialItem(s *source) (op byte, n int64, err error) {
	b := s.peek(7)
	if len(b) < 3 {
		return 0, 0, nil
	}
	switch op = b[2]; op {
	case opNewMethod:
		if len(b) >= 5 {
			n = 5 + int64(binary.LittleEndian.Uint16(b[3:]))
		}
	case opNewThread:
		if len(b) >= 7 {
			n = 7 + int64(binary.LittleEndian.Uint16(b[5:]))
		}
	case opTraceSummary:
		if len(b) >= 7 {
			n = 7 + int64(binary.LittleEndian.Uint32(b[3:]))
		}
	default:
		return op, 0, formatErr(s.pos(), "unknown streaming item: thread id 0 must be followed by op 1, 2 or 3, found %d", op)
	}
	if s.pos()+n > s.size {
		n = 0
	}
	return op, n, nil
}

// scanStreaming walks every item of a streaming file once to collect the
// method and thread definitions and the summary, which holds the clock and
// is the last item (docs/formats.md §8.2). Records are only counted here.
func scanStreaming(s *source, h *Header) error {
	announced := make(map[ThreadID]bool) // op-2 names win over the summary's
	for s.pos() < s.size {
		// Records, nearly all of the file, are skipped in a tight loop
		// over the buffered bytes.
		if n := s.skipRecords(int(h.RecordSize)); n > 0 {
			h.Records += n
			continue
		}
		start := s.pos()
		b := s.peek(2)
		if len(b) < 2 {
			return s.cut(h, start)
		}
		if b[0] != 0 || b[1] != 0 {
			if s.size-start < int64(h.RecordSize) {
				return s.cut(h, start)
			}
			h.Records++
			s.skip(int64(h.RecordSize))
			continue
		}
		op, n, err := specialItem(s)
		if err != nil {
			return err
		}
		if n == 0 {
			return s.cut(h, start)
		}
		switch op {
		case opNewMethod, opNewThread:
			d, err := parseDefinition(s, op, start, n)
			if err != nil {
				return err
			}
			h.Define(d)
			if d.IsThread {
				announced[d.Thread.ID] = true
			}
		case opTraceSummary:
			h.DataEnd = start
			if err := parseSummary(s, h, start, n, announced); err != nil {
				return err
			}
			if rest := s.size - (start + n); rest > 0 {
				h.Warnings = append(h.Warnings, "ignored "+strconv.FormatInt(rest, 10)+" bytes after the streaming summary")
			}
			return nil
		}
		s.skip(n)
	}
	h.DataEnd = s.size
	return nil
}

// Definition is a method or thread definition written between the records
// of a streaming file, as a Reader reports it (Options.SkipStreamingScan).
type Definition struct {
	At       int    // how many of the records read by the same call came before it
	IsThread bool   // Thread is set, not Method
	Thread   Thread // op 2: a thread's name
	Method   Method // op 1: a *methods line
}

// Define adds a definition to the tables. A later definition of the same
// method or thread replaces an earlier one, and a thread defined between
// the records replaces the summary's entry for it (docs/formats.md §8.2).
// A Reader calls it on its caller's goroutine as it meets each definition
// (Options.SkipStreamingScan), so no other goroutine may read the tables
// while such a Reader reads.
func (h *Header) Define(d Definition) {
	if d.IsThread {
		h.addThread(d.Thread)
		return
	}
	h.addMethod(d.Method)
}

// parseDefinition reads the op-1 or op-2 item of n bytes at the cursor,
// which starts at offset start.
func parseDefinition(s *source, op byte, start, n int64) (Definition, error) {
	b := s.peek(int(n))
	if op == opNewThread {
		id := ThreadID(binary.LittleEndian.Uint16(b[3:]))
		return Definition{IsThread: true, Thread: Thread{ID: id, Name: decodeName(b[7:])}}, nil
	}
	line := bytes.TrimSuffix(b[5:], []byte{'\n'})
	m, ok := parseMethodLine(line)
	if !ok {
		return Definition{}, formatErr(start+5, "streaming method item: expected <id><TAB><class><TAB><method>…, found %q", clip(line))
	}
	return Definition{Method: m}, nil
}

// summaryWindow is how much of a streaming file's end findSummary reads.
// The summary is key text without methods: a few hundred bytes, plus the
// thread list on ART before 2023. A larger one is found by the scan.
const summaryWindow = 256 << 10

// findSummary looks for the op-3 summary at the end of a streaming file,
// where ART puts it, without reading the records: a "00 00 03" whose u4
// length reaches exactly the end of the file, followed by "*version". When
// the tail holds two such items, one inside the other's text (the key text
// ART writes holds no zero bytes, but a file need not be ART's), the file is
// left to the scan, which finds the outer one. On success the clock and
// options are set and the definitions are left to the readers
// (Header.inBand); otherwise nothing is changed.
func findSummary(s *source, h *Header) (bool, error) {
	from := max(h.DataOffset, s.size-summaryWindow)
	if from >= s.size {
		return false, nil
	}
	tail := make([]byte, s.size-from)
	if err := s.readAt(tail, from); err != nil {
		return false, err
	}
	found := -1
	for end := len(tail); ; {
		i := bytes.LastIndex(tail[:end], []byte{0, 0, opTraceSummary})
		if i < 0 {
			break
		}
		end = i
		if i+7 > len(tail) || int64(binary.LittleEndian.Uint32(tail[i+3:])) != int64(len(tail)-i-7) ||
			!bytes.HasPrefix(tail[i+7:], []byte("*version")) {
			continue
		}
		if found >= 0 {
			return false, nil // two summaries reach the end: one holds the other
		}
		found = i
	}
	if found < 0 {
		return false, nil
	}
	start := from + int64(found)
	if err := parseSummary(s, h, start, s.size-start, nil); err != nil {
		return false, err
	}
	h.DataEnd, h.inBand = start, true
	return true, nil
}

// skipRecords consumes the records of a streaming file that lie wholly in
// the buffer, up to the next special item (which starts with two zero
// bytes), and returns how many it consumed.
func (s *source) skipRecords(size int) int64 {
	if size < 2 { // never for a valid layout; a loop that cannot advance
		return 0
	}
	i, end := s.r, s.w-size
	buf := s.buf
	n := int64(0)
	for i <= end && (buf[i]|buf[i+1]) != 0 {
		i += size
		n++
	}
	s.r = i
	return n
}

// cut records that the input ends inside the item that starts at off.
func (s *source) cut(h *Header, off int64) error {
	if s.err != nil {
		return s.err
	}
	h.DataEnd = off
	h.LostBytes = s.size - off
	return nil
}

// parseSummary reads the op-3 key text: options (with the clock) and, on
// ART before 2023, the full thread list. The text is parsed as it is read,
// up to its *end line, so that a summary item whose length reaches far
// beyond that line (it need not be the file's last item) is not read
// whole.
func parseSummary(s *source, h *Header, start, n int64, announced map[ThreadID]bool) error {
	sum := &Header{}
	text := io.NewSectionReader(s.ra, start+7, n-7)
	if err := parseKeyReader(sum, text, start+7, "streaming summary"); err != nil {
		return err
	}
	h.HasSummary = true
	h.KeyVersion = sum.KeyVersion
	h.Options = append(h.Options, sum.Options...)
	for _, t := range sum.Threads {
		if !announced[t.ID&0xFFFF] {
			h.addThread(t)
		}
	}
	for _, m := range sum.Methods {
		if _, ok := h.Method(m.ID); !ok {
			h.addMethod(m)
		}
	}
	return nil
}

// MaxKeyText bounds the key text read from a streaming summary or a .sec
// key file before its *end line. A real one is a few KB (docs/formats.md
// §8.2); the bound keeps a crafted file, or a .sec argument that names
// /dev/zero, from being read without end.
const MaxKeyText = 64 << 20

// parseKeyReader parses key text line by line from r, up to its *end line
// or the end of r, and at most MaxKeyText bytes of it; base is its offset
// for error messages and what names it.
func parseKeyReader(h *Header, r io.Reader, base int64, what string) error {
	br := bufio.NewReaderSize(r, 64<<10)
	p := keyParser{h: h}
	off := int64(0)
	var long []byte // a line longer than br's buffer
	for !p.done {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, b...)
			if len(long) > maxLineLen {
				return formatErr(base+off, "%s: expected key text, found a line longer than %d bytes", what, maxLineLen)
			}
			continue
		}
		if long != nil {
			b, long = append(long, b...), nil
		}
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return err
		}
		if off+int64(len(b)) > MaxKeyText {
			return formatErr(base+off, "%s: more than %d MiB of key text without an *end line (a real one is a few KB)", what, MaxKeyText>>20)
		}
		if err := p.line(bytes.TrimSuffix(b, []byte{'\n'}), base+off); err != nil {
			return err
		}
		off += int64(len(b))
		if err != nil && err != io.EOF {
			return err
		}
	}
	if !p.sawVersion {
		return formatErr(base, "key text: expected a *version line")
	}
	return nil
}

// parseKeyBytes parses a whole key text held in memory (the V2 summary);
// base is its offset for error messages.
func parseKeyBytes(h *Header, text []byte, base int64) error {
	p := keyParser{h: h}
	off := int64(0)
	for len(text) > 0 && !p.done {
		line, rest, _ := bytes.Cut(text, []byte{'\n'})
		if err := p.line(line, base+off); err != nil {
			return err
		}
		off += int64(len(line)) + 1
		text = rest
	}
	if !p.sawVersion {
		return formatErr(base, "key text: expected a *version line")
	}
	return nil
}
