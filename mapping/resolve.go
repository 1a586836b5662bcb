package mapping

// Resolve: the policy of docs/formats.md §19.5, rules 1-6.

import (
	"sort"
	"strings"
)

// Resolve names one trace method. It answers for the methods the map was
// read for; it is cheap (a few map lookups and the candidates of one name),
// so callers call it once per distinct trace method.
func (m *Map) Resolve(meth Method) Result {
	res := Result{Name: meth.Class + "." + meth.Name, Class: meth.Class, Method: meth.Name, Signature: meth.Signature, Source: meth.Source}
	c := m.classes[meth.Class]
	if c == nil {
		return m.outer(meth, res)
	}
	if c.outerOnly {
		return m.classOnly(meth, c.orig, c)
	}
	var cands []*member
	init := meth.Name == "<init>" || meth.Name == "<clinit>"
	for _, i := range c.byName[meth.Name] {
		// <init> and <clinit> are never renamed (rule 6).
		if mm := &c.members[i]; !init || mm.name == meth.Name {
			cands = append(cands, mm)
		}
	}
	if len(cands) == 0 {
		return m.classOnly(meth, c.orig, c)
	}
	status := Mapped
	if meth.Signature != "" {
		d, ok := parseDesc(meth.Signature)
		var matched []*member
		for _, mm := range cands {
			if m.matches(mm, meth.Signature, d, ok) {
				matched = append(matched, mm)
			}
		}
		if len(matched) > 0 {
			cands = matched
		} else {
			status = NameOnly // rule 4: none matched, by name alone
		}
	}
	return m.pick(meth, c, cands, status)
}

// candidate is one distinct original method among the candidates.
type candidate struct {
	name, sig string
	mm        *member
}

// pick names the distinct original methods of cands (rules 4 and 5).
func (m *Map) pick(meth Method, c *class, cands []*member, status Status) Result {
	seen := map[string]bool{}
	var list []candidate
	for _, mm := range cands {
		k := mm.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		list = append(list, candidate{name: ownerOf(mm, c) + "." + mm.name, sig: origDesc(mm), mm: mm})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].name != list[j].name {
			return list[i].name < list[j].name
		}
		return list[i].sig < list[j].sig
	})
	first := list[0]
	res := Result{
		Name:        first.name,
		Class:       ownerOf(first.mm, c),
		Method:      first.mm.name,
		Signature:   first.sig,
		Source:      m.source(ownerOf(first.mm, c), c, meth.Source),
		Status:      status,
		Synthesized: c.synthesized || first.mm.synthesized,
	}
	if len(list) > 1 {
		if status == Mapped {
			res.Status = Ambiguous
		}
		// Overloads of one name appear once per original method, so every
		// joined name shows that it is several.
		names := make([]string, len(list))
		for i, cd := range list {
			names[i] = cd.name
		}
		res.Name = strings.Join(names, " | ")
	}
	return res
}

// ownerOf is a member's owner: the qualified one, else the class.
func ownerOf(mm *member, c *class) string {
	if mm.owner != "" {
		return mm.owner
	}
	return c.orig
}

// source is rule 5's source file: the owner's sourceFile metadata, else
// the trace's unless it names none.
func (m *Map) source(owner string, c *class, trace string) string {
	if owner == c.orig {
		if c.source != "" {
			return c.source
		}
	} else if o := m.owners[owner]; o != nil && o.source != "" {
		return o.source
	}
	return cleanSource(trace)
}

// cleanSource drops the source columns that name no file.
func cleanSource(s string) string {
	if s == "SourceFile" || s == "Unknown Source" || strings.HasPrefix(s, mapIDPrefix) {
		return ""
	}
	return s
}

// classOnly is rule 6 (and rule 1's OUTER$suffix): the class renamed, the
// method's name kept, the descriptor's class types deobfuscated.
func (m *Map) classOnly(meth Method, orig string, c *class) Result {
	return Result{
		Name:        orig + "." + meth.Name,
		Class:       orig,
		Method:      meth.Name,
		Signature:   m.deobfDesc(meth.Signature),
		Source:      m.source(c.orig, c, meth.Source),
		Status:      ClassOnly,
		Synthesized: c.synthesized && orig == c.orig,
	}
}

// outer is rule 1's second case: C′ is OUTER$suffix and OUTER is mapped,
// so the class is ORIG(OUTER)$suffix (the longest mapped OUTER wins).
func (m *Map) outer(meth Method, res Result) Result {
	for i := strings.LastIndexByte(meth.Class, '$'); i > 0; i = strings.LastIndexByte(meth.Class[:i], '$') {
		if c := m.classes[meth.Class[:i]]; c != nil {
			return m.classOnly(meth, c.orig+meth.Class[i:], c)
		}
	}
	return res
}

// matches reports whether a candidate's residual descriptor is the trace's
// (rule 3): the residualsignature metadata, else the original signature
// with every class type mapped original → obfuscated, compared type by
// type through the names the trace's descriptors use.
func (m *Map) matches(mm *member, sig string, d desc, ok bool) bool {
	if mm.residual != "" {
		return slashed(mm.residual) == slashed(sig)
	}
	if !ok {
		return false
	}
	n := 0
	if mm.params != "" {
		n = strings.Count(mm.params, ",") + 1
	}
	if n != len(d.params) || !m.typeMatches(mm.ret, d.ret) {
		return false
	}
	rest := mm.params
	for i := range n {
		var t string
		t, rest, _ = strings.Cut(rest, ",")
		if !m.typeMatches(t, d.params[i]) {
			return false
		}
	}
	return true
}

// typeMatches reports whether Java type t, mapped original → obfuscated,
// is the descriptor type dt: a class type O of the trace matches T when O
// is T's obfuscated name, or O is T and T is no class line's original name
// (an unmapped type stays itself).
func (m *Map) typeMatches(t string, dt dtype) bool {
	base, dims := splitArray(t)
	if dims != dt.dims {
		return false
	}
	if p := primitives[base]; p != 0 || dt.prim != 0 {
		return p == dt.prim
	}
	if orig, ok := m.obfOrig[dt.class]; ok && orig == base {
		return true
	}
	return dt.class == base && !m.origNames[base]
}

// slashed normalizes a descriptor's package separators.
func slashed(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	return strings.ReplaceAll(s, ".", "/")
}

// primitives are the Java primitive types and their descriptor letters.
var primitives = map[string]byte{
	"boolean": 'Z', "byte": 'B', "char": 'C', "short": 'S', "int": 'I',
	"long": 'J', "float": 'F', "double": 'D', "void": 'V',
}

// splitArray splits "T[][]" into T and 2.
func splitArray(t string) (string, int) {
	dims := 0
	for strings.HasSuffix(t, "[]") {
		t, dims = t[:len(t)-2], dims+1
	}
	return t, dims
}

// dtype is one type of a dex descriptor.
type dtype struct {
	dims  int
	prim  byte   // the primitive's letter, or 0 for a class
	class string // the class, dotted
}

// desc is a parsed dex descriptor.
type desc struct {
	params []dtype
	ret    dtype
}

// parseDesc parses "(ARGS)RET"; ok is false when it is not a descriptor.
func parseDesc(s string) (d desc, ok bool) {
	if len(s) < 3 || s[0] != '(' {
		return d, false
	}
	i := 1
	for i < len(s) && s[i] != ')' {
		t, n := parseType(s[i:])
		if n == 0 {
			return d, false
		}
		d.params = append(d.params, t)
		i += n
	}
	if i >= len(s) {
		return d, false
	}
	t, n := parseType(s[i+1:])
	if n == 0 || i+1+n != len(s) {
		return d, false
	}
	d.ret = t
	return d, true
}

// parseType parses one descriptor type at the start of s; n is its length,
// 0 when there is none.
func parseType(s string) (t dtype, n int) {
	for n < len(s) && s[n] == '[' {
		n++
	}
	t.dims = n
	if n >= len(s) {
		return t, 0
	}
	switch c := s[n]; c {
	case 'Z', 'B', 'C', 'S', 'I', 'J', 'F', 'D', 'V':
		t.prim = c
		return t, n + 1
	case 'L':
		j := strings.IndexByte(s[n:], ';')
		if j < 2 {
			return t, 0
		}
		t.class = strings.ReplaceAll(s[n+1:n+j], "/", ".")
		return t, n + j + 1
	}
	return t, 0
}

// origDesc is a member's original signature as a descriptor with original
// types.
func origDesc(mm *member) string {
	var b strings.Builder
	b.WriteByte('(')
	if mm.params != "" {
		for t := range strings.SplitSeq(mm.params, ",") {
			writeType(&b, t)
		}
	}
	b.WriteByte(')')
	writeType(&b, mm.ret)
	return b.String()
}

// writeType writes a Java type as a descriptor type.
func writeType(b *strings.Builder, t string) {
	base, dims := splitArray(t)
	for range dims {
		b.WriteByte('[')
	}
	if p := primitives[base]; p != 0 {
		b.WriteByte(p)
		return
	}
	b.WriteByte('L')
	b.WriteString(strings.ReplaceAll(base, ".", "/"))
	b.WriteByte(';')
}

// deobfDesc is a trace descriptor with its class types named as the
// class lines' originals (unmapped ones unchanged).
func (m *Map) deobfDesc(sig string) string {
	if strings.IndexByte(sig, 'L') < 0 {
		return sig
	}
	var b strings.Builder
	for i := 0; i < len(sig); i++ {
		if sig[i] != 'L' {
			b.WriteByte(sig[i])
			continue
		}
		j := strings.IndexByte(sig[i:], ';')
		if j < 0 {
			b.WriteString(sig[i:])
			break
		}
		name := strings.ReplaceAll(sig[i+1:i+j], "/", ".")
		if orig, ok := m.obfOrig[name]; ok {
			name = orig
		}
		b.WriteByte('L')
		b.WriteString(strings.ReplaceAll(name, ".", "/"))
		b.WriteByte(';')
		i += j
	}
	return b.String()
}
