package mapping

// Metadata lines: the ids the reader knows and a lenient reader of their
// JSON objects (docs/formats.md §19.3).

import (
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
