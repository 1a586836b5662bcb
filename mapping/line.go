package mapping

// Member lines of the classes the trace uses (docs/formats.md §19.2).

import (
	"bytes"
	"strings"
)

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
