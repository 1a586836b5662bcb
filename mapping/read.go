package mapping

// The streaming reader (docs/formats.md §19.1-§19.4): one pass over the
// map, line by line, keeping only what the trace's methods need.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
)

const (
	// maxLine caps a line; a longer one is skipped with a warning.
	maxLine = 1 << 20
	// maxWarnings caps the stored warnings; the rest are counted.
	maxWarnings = 100
	// probeLines is how many lines that are not comments may come before
	// the first class line before the file is "not a mapping file".
	probeLines = 20
)

// class is what the map says about one class line the trace needs.
type class struct {
	orig        string
	source      string // sourceFile metadata
	synthesized bool
	outerOnly   bool     // read for rule 1's OUTER$suffix only: its members were not read
	members     []member // its method lines, in file order
	byName      map[string][]int32
}

// member is one method line of a class the trace uses.
type member struct {
	obf         string // obfuscated name
	rng         string // obfuscated range "s:e"; "" when the line has none
	owner       string // the qualified original owner; "" when unqualified
	name        string // original name
	ret         string // original return type, Java source form
	params      string // original parameter types, Java source form, joined by ","
	residual    string // com.android.tools.r8.residualsignature
	synthesized bool
	inlinee     bool // a later line continues its inline chain: not a candidate
}

// owner is the class line of a method line's qualified owner (rule 5).
type owner struct {
	source string
	seen   bool
}

// lineKind is what the last line that was not metadata was, for the
// metadata that follows it.
type lineKind uint8

const (
	kindNone lineKind = iota
	kindClass
	kindMethod
	kindField
)

// scanner is the state of one pass.
type scanner struct {
	m      *Map
	intern map[string]string

	traceClasses map[string]bool // the trace's classes (obfuscated)
	outers       map[string]bool // the OUTER of each OUTER$suffix trace class
	descTypes    map[string]bool // the class types of the trace's descriptors (obfuscated, dotted)
	ownersOnly   bool            // the second pass: only the owners' class lines

	lineNo     int
	off        int64
	classLines int
	probe      int    // lines before the first class line that are not comments
	firstProbe string // the first of them, for the error
	probeLine  int
	header     bool // an R8 header comment was seen

	cls   *class // the class line being read, when the trace needs it
	own   *owner // the owner class line being read
	last  lineKind
	newer bool // the map's version is newer than the reader knows
}

// notMapping is the error for a file that is not a mapping.
func notMapping(name, format string, args ...any) error {
	return fmt.Errorf("%s: not a mapping file: %s", name, fmt.Sprintf(format, args...))
}

// read is Read with a way to read the file again (nil when there is none).
func read(r io.Reader, name string, methods []Method, again func() (io.Reader, func(), error)) (*Map, error) {
	m := &Map{Name: name, classes: map[string]*class{}, owners: map[string]*owner{}, obfOrig: map[string]string{}, origNames: map[string]bool{}}
	s := &scanner{m: m, intern: map[string]string{}, traceClasses: map[string]bool{}, outers: map[string]bool{}, descTypes: map[string]bool{}}
	traceNames := map[string]map[string]bool{}
	for _, meth := range methods {
		s.traceClasses[meth.Class] = true
		if traceNames[meth.Class] == nil {
			traceNames[meth.Class] = map[string]bool{}
		}
		traceNames[meth.Class][meth.Name] = true
		for i := strings.LastIndexByte(meth.Class, '$'); i > 0; i = strings.LastIndexByte(meth.Class[:i], '$') {
			s.outers[meth.Class[:i]] = true
		}
		for _, t := range descClasses(meth.Signature) {
			s.descTypes[t] = true
		}
	}
	if err := s.pass(r); err != nil {
		return nil, err
	}
	if s.classLines == 0 && !(s.header && s.probe == 0) {
		if s.probe == 0 {
			return nil, notMapping(name, "no class line \"ORIG -> OBF:\" (%d lines)", s.lineNo)
		}
		return nil, notMapping(name, "line %d: expected a class line \"ORIG -> OBF:\", found %s", s.probeLine, s.firstProbe)
	}
	if s.finish(traceNames) && again != nil {
		// A moved method's owner whose class line came before the method
		// line: read the file again for the owners not seen, only.
		r2, done, err := again()
		if err != nil {
			return nil, fmt.Errorf("%s: reading again for the owners of moved methods: %w", name, err)
		}
		defer done()
		s2 := &scanner{m: m, intern: s.intern, ownersOnly: true}
		if err := s2.pass(r2); err != nil {
			return nil, err
		}
	}
	if m.dropped > 0 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s: %d more warnings", name, m.dropped))
	}
	return m, nil
}

// pass reads the map once.
func (s *scanner) pass(r io.Reader) error {
	// The buffer holds a whole line: ReadSlice returns it without a copy.
	br := bufio.NewReaderSize(r, maxLine)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%s: gzip: %w", s.m.Name, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, maxLine)
	}
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			s.lineNo++
			n := int64(len(line))
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				n += int64(len(line))
			}
			s.off += n
			s.warn("longer than %d bytes, skipped", maxLine)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s:%d: %w", s.m.Name, s.lineNo, err)
			}
			continue
		}
		if len(line) > 0 {
			s.lineNo++
			if e := s.line(line); e != nil {
				return e
			}
			s.off += int64(len(line))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", s.m.Name, s.lineNo, err)
		}
	}
}

// warn stores a warning for the current line.
func (s *scanner) warn(format string, args ...any) {
	if s.ownersOnly {
		return // the first pass has said it
	}
	if len(s.m.Warnings) >= maxWarnings {
		s.m.dropped++
		return
	}
	s.m.Warnings = append(s.m.Warnings, fmt.Sprintf("%s:%d: %s", s.m.Name, s.lineNo, fmt.Sprintf(format, args...)))
}

// str interns b.
func (s *scanner) str(b []byte) string {
	if v, ok := s.intern[string(b)]; ok {
		return v
	}
	v := string(b)
	s.intern[v] = v
	return v
}

var bom = []byte("\xef\xbb\xbf")

// line handles one line, its end of line included.
func (s *scanner) line(line []byte) error {
	if s.lineNo == 1 {
		line = bytes.TrimPrefix(line, bom)
	}
	if s.classLines == 0 {
		if i := bytes.IndexByte(line, 0); i >= 0 {
			return notMapping(s.m.Name, "NUL byte at offset %d (line %d): binary data", s.off+int64(i), s.lineNo)
		}
	}
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return nil
	}
	if t[0] == '#' {
		s.comment(t)
		return nil
	}
	if t[len(t)-1] == ':' && bytes.Contains(t, arrow) {
		s.classLine(t)
		return nil
	}
	if s.classLines == 0 && !s.ownersOnly {
		s.probe++
		if s.probe == 1 {
			s.firstProbe, s.probeLine = quote(t), s.lineNo
		}
		if s.probe >= probeLines {
			return notMapping(s.m.Name, "line %d: expected a class line \"ORIG -> OBF:\", found %s", s.probeLine, s.firstProbe)
		}
		s.warn("member line before any class line")
		return nil
	}
	if s.cls == nil || s.cls.outerOnly {
		if s.own != nil || s.cls != nil {
			s.last = kindField // metadata after it is not the class's
		}
		return nil // a class the trace does not use: skipped unread
	}
	s.member(t)
	return nil
}

var arrow = []byte("->")

// quote quotes the start of a line for a message.
func quote(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%q…", b[:40])
	}
	return fmt.Sprintf("%q", b)
}

// classLine handles ORIG -> OBF: (t trimmed, ending with ':').
func (s *scanner) classLine(t []byte) {
	s.classLines++
	s.cls, s.own, s.last = nil, nil, kindClass
	l, r, _ := bytes.Cut(t[:len(t)-1], arrow)
	l, r = bytes.TrimSpace(l), bytes.TrimSpace(r)
	if len(l) == 0 || len(r) == 0 || bytes.ContainsAny(l, " \t(") || bytes.ContainsAny(r, " \t(") {
		s.warn("malformed class line %s: expected \"ORIG -> OBF:\"", quote(t))
		return
	}
	if s.ownersOnly {
		if o := s.m.owners[string(l)]; o != nil && !o.seen {
			o.seen, s.own = true, o
		}
		return
	}
	if s.descTypes[string(r)] {
		if _, dup := s.m.obfOrig[string(r)]; !dup {
			s.m.obfOrig[s.str(r)] = s.str(l)
		}
	}
	if s.descTypes[string(l)] {
		s.m.origNames[s.str(l)] = true
	}
	if o := s.m.owners[string(l)]; o != nil && !o.seen {
		o.seen, s.own = true, o
	}
	trace, outer := s.traceClasses[string(r)], s.outers[string(r)]
	if !trace && !outer {
		return
	}
	if c := s.m.classes[string(r)]; c != nil && !c.outerOnly {
		s.warn("class %s is mapped again: this class line is ignored", r)
		return
	}
	s.cls = &class{orig: s.str(l), outerOnly: !trace}
	s.m.classes[s.str(r)] = s.cls
}

// comment handles a line starting with '#': the pg_map_id, an R8 header
// line, JSON metadata or a plain comment.
func (s *scanner) comment(t []byte) {
	rest := bytes.TrimLeft(t[1:], " \t")
	if len(rest) == 0 {
		return
	}
	if rest[0] != '{' {
		if s.classLines == 0 && !s.ownersOnly {
			if id, ok := bytes.CutPrefix(rest, []byte("pg_map_id:")); ok && s.m.ID == "" {
				s.m.ID = string(bytes.TrimSpace(id))
				s.header = true
			} else if bytes.HasPrefix(rest, []byte("compiler:")) {
				s.header = true
			}
		}
		return
	}
	// The trace's classes: all their metadata; the OUTER and owner classes:
	// the metadata right under their class line.
	wanted := s.cls != nil && !s.cls.outerOnly || (s.cls != nil || s.own != nil) && s.last == kindClass
	if !wanted && (s.ownersOnly || !bytes.Contains(rest, []byte(idMapping))) {
		return // metadata of a class the trace does not use
	}
	md, err := parseMeta(rest)
	if err != nil {
		s.warn("metadata: %v", err)
		return
	}
	s.meta(md)
}
