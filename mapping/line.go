package mapping

// Member lines and metadata of the classes the trace uses
// (docs/formats.md §19.2, §19.3).

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// The metadata ids the reader knows (docs/formats.md §19.3).
const (
	idMapping         = "com.android.tools.r8.mapping"
	idSourceFile      = "sourceFile"
	idSynthesized     = "com.android.tools.r8.synthesized"
	idResidual        = "com.android.tools.r8.residualsignature"
	idRewriteFrame    = "com.android.tools.r8.rewriteFrame"
	idOutline         = "com.android.tools.r8.outline"
	idOutlineCallsite = "com.android.tools.r8.outlineCallsite"
	idPartition       = "partitionSourceFiles"
	idMergedClasses   = "com.android.tools.r8.mergedClasses"
)

// knownVersions are the map versions whose metadata the reader knows.
var knownVersions = map[string]bool{"1.0": true, "2.0": true, "2.1": true, "2.2": true, "experimental": true}

// member handles a member line of a class the trace uses (t trimmed): a
// method line is kept, a field line only noted.
func (s *scanner) member(t []byte) {
	l, r, ok := bytes.Cut(t, arrow)
	if !ok {
		s.warn("expected \"->\" in member line %s", quote(t))
		s.last = kindNone
		return
	}
	l, r = bytes.TrimSpace(l), bytes.TrimSpace(r)
	if len(l) == 0 || len(r) == 0 || bytes.ContainsAny(r, " \t()") {
		s.warn("malformed member line %s: expected \"TYPE NAME -> OBF\" or \"[S:E:]RET NAME(ARGS)[:S[:E]] -> OBF\"", quote(t))
		s.last = kindNone
		return
	}
	if bytes.IndexByte(l, '(') < 0 {
		s.last = kindField // fields are not in a method trace
		return
	}
	mem, what := s.method(l)
	if what != "" {
		s.warn("malformed method line %s: %s", quote(t), what)
		s.last = kindNone
		return
	}
	mem.obf = s.str(r)
	c := s.cls
	if mem.owner == c.orig {
		mem.owner = "" // qualified with its own class: the same method as unqualified
	}
	// An inline chain: consecutive method lines (other lines between do
	// not count) with the same obfuscated range and name; only the last is
	// a candidate (rule 2).
	if n := len(c.members); n > 0 && mem.rng != "" && s.last != kindNone {
		if p := &c.members[n-1]; p.rng == mem.rng && p.obf == mem.obf {
			p.inlinee = true
		}
	}
	if mem.owner != "" && s.m.owners[mem.owner] == nil {
		s.m.owners[mem.owner] = &owner{}
	}
	c.members = append(c.members, mem)
	s.last = kindMethod
}

// method parses the left side of a method line:
// [S:E:]RET [OWNER.]NAME(ARGS)[:S[:E]]. what says what is wrong.
func (s *scanner) method(l []byte) (mem member, what string) {
	if l[0] >= '0' && l[0] <= '9' {
		i := digits(l, 0)
		if i == len(l) || l[i] != ':' {
			return mem, "expected \"START:END:\" before the return type"
		}
		j := digits(l, i+1)
		if j == i+1 || j == len(l) || l[j] != ':' {
			return mem, "expected \"START:END:\" before the return type"
		}
		mem.rng = s.str(l[:j])
		l = bytes.TrimLeft(l[j+1:], " \t")
	}
	sp := bytes.IndexAny(l, " \t")
	if sp <= 0 {
		return mem, "expected a return type and a name"
	}
	ret, rest := l[:sp], bytes.TrimLeft(l[sp:], " \t")
	if bytes.IndexByte(ret, ':') >= 0 {
		return mem, "expected \"START:END:\" before the return type"
	}
	open := bytes.IndexByte(rest, '(')
	closing := bytes.IndexByte(rest, ')')
	if open <= 0 || closing < open {
		return mem, "expected NAME(ARGS)"
	}
	full := bytes.TrimSpace(rest[:open])
	if len(full) == 0 || bytes.ContainsAny(full, " \t") {
		return mem, "expected NAME(ARGS)"
	}
	if tail := bytes.TrimSpace(rest[closing+1:]); len(tail) > 0 && !origRange(tail) {
		return mem, "expected \":START[:END]\" after the arguments"
	}
	if dot := bytes.LastIndexByte(full, '.'); dot >= 0 {
		if dot == 0 || dot == len(full)-1 {
			return mem, "expected OWNER.NAME"
		}
		mem.owner, full = s.str(full[:dot]), full[dot+1:]
	}
	mem.name, mem.ret = s.str(full), s.str(ret)
	args := rest[open+1 : closing]
	if bytes.ContainsAny(args, " \t") {
		args = bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, args)
	}
	mem.params = s.str(args)
	return mem, ""
}

// digits returns the index after the decimal digits of b starting at i.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// origRange reports whether b is ":N" or ":N:M".
func origRange(b []byte) bool {
	for range 2 {
		if len(b) == 0 || b[0] != ':' {
			return false
		}
		i := digits(b, 1)
		if i == 1 {
			return false
		}
		if b = b[i:]; len(b) == 0 {
			return true
		}
	}
	return false
}

// meta applies one metadata line to what it follows.
func (s *scanner) meta(md meta) {
	switch md.id {
	case idMapping:
		s.version(md.version)
	case idSourceFile:
		if md.fileName == "" {
			s.warn("sourceFile metadata without a fileName")
			return
		}
		if s.cls != nil {
			s.cls.source = md.fileName
		}
		if s.own != nil {
			s.own.source = md.fileName
		}
	case idSynthesized:
		switch {
		case s.cls == nil:
		case s.last == kindClass:
			s.cls.synthesized = true
		case s.last == kindMethod:
			s.cls.members[len(s.cls.members)-1].synthesized = true
		}
	case idResidual:
		if md.signature == "" {
			s.warn("residualsignature metadata without a signature")
			return
		}
		if s.cls != nil && s.last == kindMethod {
			s.cls.members[len(s.cls.members)-1].residual = md.signature
		}
	case idRewriteFrame, idOutline, idOutlineCallsite, idPartition, idMergedClasses:
		// For exception stack traces and outlines: nothing a method trace
		// needs (docs/formats.md §19.3).
	case "":
		s.warn("metadata without an \"id\"")
	default:
		if !s.newer {
			s.warn("unknown metadata id %q", md.id)
		}
	}
}

// version handles the map version entry; a version applies from its line on.
func (s *scanner) version(v string) {
	if s.ownersOnly {
		return
	}
	s.m.Version = v
	s.newer = false
	if knownVersions[v] {
		return
	}
	major, minor, ok := strings.Cut(v, ".")
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	if ok && err1 == nil && err2 == nil && (a > 2 || a == 2 && b > 2) {
		s.newer = true
		s.warn("map version %s is newer than 2.2: reading the metadata this reader knows, ignoring the rest", v)
		return
	}
	s.warn("unknown map version %q", v)
}

// finish prepares the classes for Resolve: residual signatures and
// synthesized marks spread to every line of their original method, and
// candidates indexed by obfuscated name. It reports whether a candidate
// the trace may use names an owner whose class line was not seen.
func (s *scanner) finish(traceNames map[string]map[string]bool) (again bool) {
	for obf, c := range s.m.classes {
		if c.outerOnly {
			continue
		}
		var res map[string]string
		var syn map[string]bool
		for i := range c.members {
			mm := &c.members[i]
			if mm.residual == "" && !mm.synthesized {
				continue
			}
			if res == nil {
				res, syn = map[string]string{}, map[string]bool{}
			}
			k := mm.key()
			if mm.residual != "" {
				if _, dup := res[k]; !dup {
					res[k] = mm.residual
				}
			}
			syn[k] = syn[k] || mm.synthesized
		}
		c.byName = make(map[string][]int32)
		for i := range c.members {
			mm := &c.members[i]
			if res != nil {
				k := mm.key()
				if mm.residual == "" {
					mm.residual = res[k]
				}
				mm.synthesized = mm.synthesized || syn[k]
			}
			if mm.inlinee {
				continue
			}
			c.byName[mm.obf] = append(c.byName[mm.obf], int32(i))
			if mm.owner != "" && traceNames[obf][mm.obf] {
				if o := s.m.owners[mm.owner]; o != nil && !o.seen {
					again = true
				}
			}
		}
	}
	return again
}

// key identifies a member's original method: owner, name, parameter and
// return types.
func (mm *member) key() string {
	return mm.owner + "\x00" + mm.name + "\x00" + mm.params + "\x00" + mm.ret
}

// meta is what the reader uses of one JSON metadata line.
type meta struct {
	id, version, fileName, signature string
}

// parseMeta reads a metadata object leniently: keys double-quoted,
// single-quoted or bare (R8's own tests use all three); values strings,
// numbers, words, arrays or objects. Only the string values of the keys
// the reader uses are kept.
func parseMeta(b []byte) (meta, error) {
	var md meta
	p := &jsonish{b: b}
	if !p.eat('{') {
		return md, fmt.Errorf("expected '{'")
	}
	if p.eat('}') {
		return md, p.end()
	}
	for {
		key, err := p.str()
		if err != nil {
			return md, fmt.Errorf("key: %v", err)
		}
		if !p.eat(':') {
			return md, fmt.Errorf("expected ':' after key %q", key)
		}
		p.space()
		if p.i < len(p.b) && (p.b[p.i] == '[' || p.b[p.i] == '{') {
			if err := p.skip(); err != nil {
				return md, err
			}
		} else {
			v, err := p.str()
			if err != nil {
				return md, fmt.Errorf("value of %q: %v", key, err)
			}
			switch key {
			case "id":
				md.id = v
			case "version":
				md.version = v
			case "fileName":
				md.fileName = v
			case "signature":
				md.signature = v
			}
		}
		if p.eat('}') {
			return md, p.end()
		}
		if !p.eat(',') {
			return md, fmt.Errorf("expected ',' or '}' at column %d", p.i+1)
		}
	}
}

// jsonish is a cursor over a metadata object.
type jsonish struct {
	b []byte
	i int
}

func (p *jsonish) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t') {
		p.i++
	}
}

func (p *jsonish) eat(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonish) end() error {
	p.space()
	if p.i != len(p.b) {
		return fmt.Errorf("text after the object at column %d", p.i+1)
	}
	return nil
}

// str reads a quoted string (either quote, backslash escapes kept as the
// escaped character) or a bare word.
func (p *jsonish) str() (string, error) {
	p.space()
	if p.i >= len(p.b) {
		return "", fmt.Errorf("unexpected end")
	}
	if q := p.b[p.i]; q == '"' || q == '\'' {
		var sb []byte
		for j := p.i + 1; j < len(p.b); j++ {
			switch c := p.b[j]; {
			case c == q:
				p.i = j + 1
				return string(sb), nil
			case c == '\\' && j+1 < len(p.b):
				j++
				sb = append(sb, p.b[j])
			default:
				sb = append(sb, c)
			}
		}
		return "", fmt.Errorf("unterminated string")
	}
	j := p.i
	for j < len(p.b) && !strings.ContainsRune(" \t,:{}[]\"'", rune(p.b[j])) {
		j++
	}
	if j == p.i {
		return "", fmt.Errorf("unexpected %q at column %d", p.b[p.i], p.i+1)
	}
	w := string(p.b[p.i:j])
	p.i = j
	return w, nil
}

// skip skips an array or object, strings included.
func (p *jsonish) skip() error {
	depth := 0
	for p.i < len(p.b) {
		switch c := p.b[p.i]; c {
		case '[', '{':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				p.i++
				return nil
			}
		case '"', '\'':
			if _, err := p.str(); err != nil {
				return err
			}
			continue
		}
		p.i++
	}
	return fmt.Errorf("unterminated array or object")
}

// descClasses returns the class types of a dex descriptor, dotted.
func descClasses(sig string) []string {
	var out []string
	for i := 0; i < len(sig); i++ {
		if sig[i] != 'L' {
			continue
		}
		j := strings.IndexByte(sig[i:], ';')
		if j < 0 {
			break
		}
		out = append(out, strings.ReplaceAll(sig[i+1:i+j], "/", "."))
		i += j
	}
	return out
}
