package tracegen

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns the text form of t. [ParseText] of the result yields a trace
// equal to t.
func (t *Trace) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "version %d\n", t.Version)
	if t.Clock != "" {
		fmt.Fprintf(&b, "clock %s\n", quoteToken(t.Clock))
	}
	if t.VM != "" {
		fmt.Fprintf(&b, "vm %s\n", quoteToken(t.VM))
	}
	if t.Start != 0 {
		fmt.Fprintf(&b, "start %d\n", t.Start)
	}
	if t.RecordSize != 0 {
		fmt.Fprintf(&b, "recordsize %d\n", t.RecordSize)
	}
	if t.DataOffset != 0 {
		fmt.Fprintf(&b, "dataoffset %d\n", t.DataOffset)
	}
	if t.BareKey {
		b.WriteString("barekey\n")
	}
	for _, o := range t.Options {
		fmt.Fprintf(&b, "option %s\n", quoteRest(o.Key+"="+o.Value))
	}
	for _, th := range t.Threads {
		fmt.Fprintf(&b, "thread %d %s\n", th.ID, quoteRest(th.Name))
	}
	for _, m := range t.Methods {
		fmt.Fprintf(&b, "method %#x %s %s %s %s", m.ID, quoteToken(m.Class),
			quoteToken(m.Name), quoteToken(m.Signature), quoteToken(m.Source))
		if m.Line != 0 {
			fmt.Fprintf(&b, " %d", m.Line)
		}
		b.WriteByte('\n')
	}
	for _, r := range t.Records {
		fmt.Fprintf(&b, "%d %s %#x", r.Thread, r.Action, r.Method)
		// Write the one time of a one-clock layout unless the other field
		// is non-zero, so that the text form never loses data.
		switch {
		case t.Version >= 3:
			fmt.Fprintf(&b, " %d %d\n", r.CPU, r.Wall)
		case t.Clock == "wall" && r.CPU == 0:
			fmt.Fprintf(&b, " %d\n", r.Wall)
		case t.Clock != "wall" && r.Wall == 0:
			fmt.Fprintf(&b, " %d\n", r.CPU)
		default:
			fmt.Fprintf(&b, " %d %d\n", r.CPU, r.Wall)
		}
	}
	return b.String()
}

// quoteToken quotes s when it would not read back as one plain token.
func quoteToken(s string) string {
	if s == "" || strings.HasPrefix(s, "#") || strings.ContainsFunc(s, unicode.IsSpace) {
		return strconv.Quote(s)
	}
	return quoteRest(s)
}

// quoteRest quotes s when it would not read back verbatim as the rest of a
// line: leading or trailing space, a comment, a quote (which could start a
// quoted token), a non-printing character or invalid UTF-8.
func quoteRest(s string) string {
	if s == "" || s != strings.TrimSpace(s) || strings.Contains(s, "#") ||
		strings.Contains(s, `"`) || !utf8.ValidString(s) ||
		strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) && r != ' ' }) {
		return strconv.Quote(s)
	}
	return s
}

// token is one word of a text line.
type token struct {
	s          string // the word, unquoted
	start, end int    // byte offsets in the line, quotes included
	quoted     bool
}

// tokenize splits line into words, stopping at a comment.
func tokenize(line string) ([]token, error) {
	var toks []token
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
			i++
		}
		if i == len(line) || line[i] == '#' {
			return toks, nil
		}
		start := i
		if line[i] == '"' {
			q, err := strconv.QuotedPrefix(line[i:])
			if err != nil {
				return nil, fmt.Errorf("bad quoted string at column %d", i+1)
			}
			s, _ := strconv.Unquote(q) // QuotedPrefix validated it
			i += len(q)
			if i < len(line) && !strings.ContainsRune(" \t\r", rune(line[i])) {
				return nil, fmt.Errorf("missing space after quoted string at column %d", i+1)
			}
			toks = append(toks, token{s: s, start: start, end: i, quoted: true})
			continue
		}
		for i < len(line) && !strings.ContainsRune(" \t\r", rune(line[i])) {
			i++
		}
		toks = append(toks, token{s: line[start:i], start: start, end: i})
	}
}

// ParseText parses the text form of a [Trace], written one directive per
// line, as used in txtar test cases. Blank lines are ignored, and a token
// that starts with # begins a comment that runs to the end of the line.
// Directives:
//
//	version 3                  required; the data version
//	clock dual                 optional; omitted means no clock= line
//	vm art                     optional; art or dalvik (see Trace.VM)
//	start 1000000              header start time, µs
//	recordsize 14              Trace.RecordSize
//	dataoffset 32              Trace.DataOffset
//	barekey                    Trace.BareKey
//	option pid=1234            one key=value line (rest of the line)
//	thread 1 main              id, then the rest of the line is the name
//	method 0x4 com.example.App onCreate (Landroid/os/Bundle;)V App.java 42
//	                           id class name signature source [line]
//	1 enter 0x4 0 0            a record: thread action method time [time]
//
// Record actions are enter, exit, unwind, bad or a number. A record with two
// times gives the thread-CPU time, then the wall time. A record with one time
// gives the time of the trace's single clock: wall when the clock is wall,
// thread-CPU otherwise; the other time is zero.
//
// Ids are decimal, or hexadecimal with a 0x prefix. Any token can be written
// as a Go double-quoted string, which is how names that are empty, contain
// spaces or #, or are not valid UTF-8 are spelled; a thread name or option
// that is not quoted is taken verbatim from the rest of the line.
func ParseText(src string) (*Trace, error) {
	p := textParser{t: &Trace{}}
	for n, line := range strings.Split(src, "\n") {
		toks, err := tokenize(line)
		if err == nil && len(toks) > 0 {
			err = p.line(line, toks)
		}
		if err != nil {
			return nil, fmt.Errorf("parsing text line %d: %w", n+1, err)
		}
	}
	if !p.hasVersion {
		return nil, fmt.Errorf("parsing text: missing version directive")
	}
	// The clock may be given after the records, so one-time records are
	// resolved at the end.
	for i, one := range p.single {
		if one && p.t.Clock == "wall" {
			r := &p.t.Records[i]
			r.Wall, r.CPU = r.CPU, 0
		}
	}
	return p.t, nil
}

// textParser holds the state of ParseText.
type textParser struct {
	t          *Trace
	single     []bool // per record: only one time was given (stored in CPU)
	hasVersion bool
}

// line applies one non-empty line.
func (p *textParser) line(line string, toks []token) error {
	t := p.t
	dir, args := toks[0], toks[1:]
	if !dir.quoted && dir.s[0] >= '0' && dir.s[0] <= '9' {
		one, err := t.parseRecord(toks)
		p.single = append(p.single, one)
		return err
	}
	var err error
	switch dir.s {
	case "version":
		if err = wantArgs(dir.s, args, 1, 1); err == nil {
			t.Version, err = parseInt(dir.s, args[0].s)
			p.hasVersion = true
		}
	case "clock":
		if err = wantArgs(dir.s, args, 1, 1); err == nil {
			t.Clock = args[0].s
		}
	case "vm":
		if err = wantArgs(dir.s, args, 1, 1); err == nil {
			t.VM = args[0].s
		}
	case "start":
		if err = wantArgs(dir.s, args, 1, 1); err == nil {
			if t.Start, err = strconv.ParseUint(args[0].s, 10, 64); err != nil {
				err = fmt.Errorf("start: bad number %q", args[0].s)
			}
		}
	case "recordsize":
		if err = wantArgs(dir.s, args, 1, 1); err == nil {
			t.RecordSize, err = parseU16(dir.s, args[0].s)
		}
	case "dataoffset":
		if err = wantArgs(dir.s, args, 1, 1); err == nil {
			t.DataOffset, err = parseU16(dir.s, args[0].s)
		}
	case "barekey":
		err = wantArgs(dir.s, args, 0, 0)
		t.BareKey = true
	case "option":
		var kv string
		if kv, err = rest(dir.s, line, args); err == nil {
			k, v, _ := strings.Cut(kv, "=")
			t.Options = append(t.Options, Option{Key: k, Value: v})
		}
	case "thread":
		err = t.parseThread(line, args)
	case "method":
		err = t.parseMethod(args)
	default:
		err = fmt.Errorf("unknown directive %q", dir.s)
	}
	return err
}

// parseU16 parses the value of a u2 header field.
func parseU16(dir, s string) (int, error) {
	v, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("%s: bad number %q (want 0 to 65535)", dir, s)
	}
	return int(v), nil
}

func parseInt(dir, s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s: bad number %q", dir, s)
	}
	return v, nil
}

func wantArgs(dir string, args []token, lo, hi int) error {
	if len(args) < lo || len(args) > hi {
		return fmt.Errorf("%s: got %d arguments, want %d to %d", dir, len(args), lo, hi)
	}
	return nil
}

// rest returns the rest of the line after the directive: the unquoted
// string when it is one quoted token, else the raw text.
func rest(dir, line string, args []token) (string, error) {
	if len(args) == 0 {
		return "", fmt.Errorf("%s: missing value", dir)
	}
	if len(args) == 1 && args[0].quoted {
		return args[0].s, nil
	}
	return line[args[0].start:args[len(args)-1].end], nil
}

func (t *Trace) parseThread(line string, args []token) error {
	if len(args) < 2 {
		return fmt.Errorf("thread: want an id and a name")
	}
	id, err := parseID(args[0].s)
	if err != nil {
		return fmt.Errorf("thread: %w", err)
	}
	name, err := rest("thread", line, args[1:])
	t.Threads = append(t.Threads, Thread{ID: id, Name: name})
	return err
}

func (t *Trace) parseMethod(args []token) error {
	if err := wantArgs("method", args, 5, 6); err != nil {
		return err
	}
	id, err := parseID(args[0].s)
	if err != nil {
		return fmt.Errorf("method: %w", err)
	}
	m := Method{ID: id, Class: args[1].s, Name: args[2].s, Signature: args[3].s, Source: args[4].s}
	if len(args) == 6 {
		if m.Line, err = strconv.Atoi(args[5].s); err != nil {
			return fmt.Errorf("method: bad line number %q", args[5].s)
		}
	}
	t.Methods = append(t.Methods, m)
	return nil
}

// parseRecord parses "thread action method time [time]". A single time is
// stored in CPU; ParseText moves it once the clock is known.
func (t *Trace) parseRecord(toks []token) (bool, error) {
	if len(toks) != 4 && len(toks) != 5 {
		return false, fmt.Errorf("record: got %d fields, want thread action method time [time]", len(toks))
	}
	var r Record
	var err error
	if r.Thread, err = parseID(toks[0].s); err != nil {
		return false, fmt.Errorf("record thread: %w", err)
	}
	if r.Action, err = parseAction(toks[1].s); err != nil {
		return false, err
	}
	if r.Method, err = parseID(toks[2].s); err != nil {
		return false, fmt.Errorf("record method: %w", err)
	}
	var times [2]uint32
	for i, tok := range toks[3:] {
		v, err := strconv.ParseUint(tok.s, 10, 32)
		if err != nil {
			return false, fmt.Errorf("record time %q: want a decimal u32", tok.s)
		}
		times[i] = uint32(v)
	}
	r.CPU, r.Wall = times[0], times[1]
	t.Records = append(t.Records, r)
	return len(toks) == 4, nil
}

func parseAction(s string) (Action, error) {
	for a, name := range actionNames {
		if s == name {
			return Action(a), nil
		}
	}
	v, err := strconv.ParseUint(s, 10, 8)
	if err != nil {
		return 0, fmt.Errorf("unknown action %q", s)
	}
	return Action(v), nil
}

// parseID parses a decimal id or a hexadecimal one with a 0x prefix. It
// does not use base 0: a leading 0 must not mean octal (docs/formats.md §3.4).
func parseID(s string) (uint32, error) {
	base := 10
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		s, base = h, 16
	}
	v, err := strconv.ParseUint(s, base, 32)
	if err != nil {
		return 0, fmt.Errorf("bad id %q", s)
	}
	return uint32(v), nil
}

// ConvertTextFile reads a trace in the text form from src and writes it to
// dst as a regular binary file, for tests that keep their traces readable.
func ConvertTextFile(src, dst string) error {
	text, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tr, err := ParseText(string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	return os.WriteFile(dst, tr.Regular(), 0o644)
}
