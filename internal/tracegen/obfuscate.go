package tracegen

import (
	"fmt"
	"strings"
)

// A Plan says how a minifier (R8 or ProGuard) renamed an app's classes and
// methods. [Obfuscate] applies it to a readable trace and [Plan.R8] and
// [Plan.ProGuard] write the mapping.txt that undoes it (docs/formats.md §19).
type Plan struct {
	// MapID is the map's pg_map_id. Classes whose Source is SourceMapID
	// read r8-map-id-<MapID> in the trace's source column, as R8 writes
	// them since AGP 8.12.
	MapID   string
	Classes []ClassPlan
}

// SourceStyle is what a minified build's trace holds in the source column
// of a class's methods.
type SourceStyle uint8

const (
	// SourceMapID is r8-map-id-<Plan.MapID>; the map names the file in
	// sourceFile metadata when File is set.
	SourceMapID SourceStyle = iota
	// SourceFileName is "SourceFile" (-renamesourcefileattribute); the map
	// names the file in sourceFile metadata when File is set.
	SourceFileName
	// SourceKept is File itself, kept in the dex; the map has no sourceFile
	// metadata for it.
	SourceKept
)

// ClassPlan is one class line of the map and the method lines under it.
//
// A trace class missing from the plan keeps its name, unless it is
// OUTER$suffix with OUTER in the plan (the longest such OUTER): then it
// becomes Obf(OUTER)$suffix, a class the map does not list (made at run
// time or by another tool), with OUTER's source column, and its methods
// keep their names.
type ClassPlan struct {
	Orig, Obf   string // dotted; Obf == Orig is an identity class line
	File        string // the class's source file (FeedAdapter.kt); "" when unknown
	Source      SourceStyle
	Synthesized bool     // com.android.tools.r8.synthesized on the class line
	Fields      []string // field lines as written, e.g. "java.util.List items -> a"
	// Methods are the method lines. A trace method of the class that is not
	// listed is a kept-name member: the map does not mention it.
	Methods []MethodPlan
}

// MethodPlan is one original method listed under a class line.
type MethodPlan struct {
	// Owner is the class the method was written in when R8 moved it into
	// this one (the map qualifies its name: com.example.Other.helper); ""
	// for the class itself.
	Owner     string
	Name      string
	Signature string // the original descriptor, original class types
	Obf       string // the renamed name; "" keeps Name (an identity method line)
	// Residual is the dex descriptor when it is not Signature with its
	// class types renamed (R8 removed or changed a parameter). The R8 map
	// carries it as com.android.tools.r8.residualsignature metadata; a
	// ProGuard map cannot.
	Residual string
	// Inlined are methods R8 inlined into this one, innermost first: the
	// map writes them as an inline chain (each line with the method's
	// renamed name) before the method's own line range.
	Inlined     []Inlinee
	NoLines     bool // the method line has no line range
	Synthesized bool // com.android.tools.r8.synthesized on the method
}

// Inlinee is a frame of an inline chain.
type Inlinee struct {
	Owner     string // "" for the class itself
	Name      string
	Signature string // original descriptor, original class types
	// RewriteFrame writes a com.android.tools.r8.rewriteFrame metadata
	// line after the frame, inside the chain, as R8 does for frames it
	// removes from exception stack traces.
	RewriteFrame bool
}

// Obfuscation is a readable trace as a minified build records it, with the
// maps that undo the renaming.
type Obfuscation struct {
	// Trace is the minified build's trace: the same threads, method ids
	// and records, with classes, methods, descriptors and sources renamed.
	Trace *Trace
	// R8 and ProGuard are the mapping files (see [Plan.R8], [Plan.ProGuard]).
	R8, ProGuard []byte
	// ProGuardRestored is the trace as the ProGuard map gives it back. The
	// R8 map gives back the original exactly ([Obfuscate] checks it); a
	// ProGuard map has no sourceFile metadata, so a class whose trace
	// source is SourceFile or r8-map-id-… gets no source, and no residual
	// signatures, so such a method is found by its name alone (the same
	// method when the name is unique in its class).
	ProGuardRestored *Trace
}

// Obfuscate renames the methods of t as p says and checks that the R8 map
// restores t exactly under the resolution rules of docs/formats.md §19: it
// fails when p and t disagree (a method the map would resolve to another
// one, a source the map cannot restore, two methods with one dex name).
func Obfuscate(t *Trace, p *Plan) (*Obfuscation, error) {
	ix, err := p.index()
	if err != nil {
		return nil, err
	}
	obf := *t
	obf.Methods = make([]Method, len(t.Methods))
	dex := make(map[methodKey]string, len(t.Methods))
	for i, m := range t.Methods {
		o, err := ix.obfuscate(m)
		if err != nil {
			return nil, err
		}
		k := methodKey{o.Class, o.Name, o.Signature}
		if prev, ok := dex[k]; ok {
			return nil, fmt.Errorf("tracegen: %s and %s.%s%s are both %s.%s%s in the dex", prev, m.Class, m.Name, m.Signature, o.Class, o.Name, o.Signature)
		}
		dex[k] = m.Class + "." + m.Name + m.Signature
		obf.Methods[i] = o
	}
	pg := *t
	pg.Methods = make([]Method, len(t.Methods))
	for i, o := range obf.Methods {
		r8, err := ix.restore(o, true)
		if err != nil {
			return nil, err
		}
		if m := t.Methods[i]; r8 != m {
			return nil, fmt.Errorf("tracegen: the R8 map restores %s.%s%s (source %q) as %s.%s%s (source %q)",
				m.Class, m.Name, m.Signature, m.Source, r8.Class, r8.Name, r8.Signature, r8.Source)
		}
		if pg.Methods[i], err = ix.restore(o, false); err != nil {
			return nil, err
		}
	}
	return &Obfuscation{Trace: &obf, R8: p.R8(), ProGuard: p.ProGuard(), ProGuardRestored: &pg}, nil
}

// planIndex looks a plan up by original and by obfuscated names.
type planIndex struct {
	p       *Plan
	byOrig  map[string]*ClassPlan
	byObf   map[string]*ClassPlan
	members map[methodKey]member // (original owner, name, descriptor)
}

type member struct {
	c *ClassPlan
	m *MethodPlan
}

func (p *Plan) index() (*planIndex, error) {
	ix := &planIndex{p: p, byOrig: map[string]*ClassPlan{}, byObf: map[string]*ClassPlan{}, members: map[methodKey]member{}}
	for i := range p.Classes {
		c := &p.Classes[i]
		if ix.byOrig[c.Orig] != nil || ix.byObf[c.Obf] != nil {
			return nil, fmt.Errorf("tracegen: class %s -> %s listed twice", c.Orig, c.Obf)
		}
		if c.Source == SourceMapID && p.MapID == "" {
			return nil, fmt.Errorf("tracegen: class %s: r8-map-id source without a map id", c.Orig)
		}
		ix.byOrig[c.Orig], ix.byObf[c.Obf] = c, c
	}
	for i := range p.Classes {
		c := &p.Classes[i]
		for j := range c.Methods {
			m := &c.Methods[j]
			k := methodKey{c.owner(m.Owner), m.Name, m.Signature}
			if _, ok := ix.members[k]; ok {
				return nil, fmt.Errorf("tracegen: method %s.%s%s listed twice", k.class, k.name, k.sig)
			}
			if _, _, err := parseDescriptor(m.Signature); err != nil {
				return nil, fmt.Errorf("tracegen: method %s.%s: %w", k.class, k.name, err)
			}
			if isConstructor(m.Name) && m.obf() != m.Name {
				return nil, fmt.Errorf("tracegen: %s.%s renamed to %s: constructors keep their names", k.class, m.Name, m.obf())
			}
			ix.members[k] = member{c, m}
		}
	}
	return ix, nil
}

func isConstructor(name string) bool { return name == "<init>" || name == "<clinit>" }

// owner is the original class a method line names: the qualified owner or
// the class itself.
func (c *ClassPlan) owner(o string) string {
	if o == "" {
		return c.Orig
	}
	return o
}

// hasSourceMeta reports whether the map carries the class's sourceFile
// metadata.
func (c *ClassPlan) hasSourceMeta() bool { return c.File != "" && c.Source != SourceKept }

// traceSource is the source column of the class's methods in the minified
// build's trace.
func (c *ClassPlan) traceSource(p *Plan) string {
	switch c.Source {
	case SourceMapID:
		return "r8-map-id-" + p.MapID
	case SourceFileName:
		return "SourceFile"
	}
	return c.File
}

func (m *MethodPlan) obf() string {
	if m.Obf == "" {
		return m.Name
	}
	return m.Obf
}

// obfuscate renames one readable trace method.
func (ix *planIndex) obfuscate(m Method) (Method, error) {
	o := m
	o.Signature = ix.renameTypes(m.Signature)
	if mem, ok := ix.members[methodKey{m.Class, m.Name, m.Signature}]; ok {
		o.Class, o.Name, o.Source = mem.c.Obf, mem.m.obf(), mem.c.traceSource(ix.p)
		if mem.m.Residual != "" {
			o.Signature = mem.m.Residual
		}
		return o, nil
	}
	if c := ix.byOrig[m.Class]; c != nil {
		for _, lm := range c.Methods {
			if lm.obf() == m.Name {
				return o, fmt.Errorf("tracegen: kept method %s.%s has the renamed name of %s", m.Class, m.Name, lm.Name)
			}
		}
		o.Class, o.Source = c.Obf, c.traceSource(ix.p)
		return o, nil
	}
	if c, suffix := outerClass(ix.byOrig, m.Class); c != nil {
		// Not in the map: the class keeps its names and shares its
		// outer class's source column.
		o.Class, o.Source = c.Obf+suffix, c.traceSource(ix.p)
	}
	return o, nil
}

// outerClass finds the longest OUTER of a class OUTER$suffix in classes.
func outerClass(classes map[string]*ClassPlan, name string) (*ClassPlan, string) {
	for i := len(name) - 1; i > 0; i-- {
		if name[i] == '$' {
			if c := classes[name[:i]]; c != nil {
				return c, name[i:]
			}
		}
	}
	return nil, ""
}

// renameTypes renames the class types of a descriptor through the class
// lines (original → obfuscated), as R8 computes a residual signature. A
// descriptor that does not parse is kept.
func (ix *planIndex) renameTypes(desc string) string {
	return mapTypes(desc, func(c string) string {
		if cp := ix.byOrig[c]; cp != nil {
			return cp.Obf
		}
		return c
	})
}

// origTypes renames the class types of a descriptor back (obfuscated →
// original), as the map does for a member it does not list.
func (ix *planIndex) origTypes(desc string) string {
	return mapTypes(desc, func(c string) string {
		if cp := ix.byObf[c]; cp != nil {
			return cp.Orig
		}
		return c
	})
}

// mapTypes renames every class type of a descriptor with rename, which
// takes and returns dotted names. A descriptor that does not parse is
// kept.
func mapTypes(desc string, rename func(string) string) string {
	params, ret, err := parseDescriptor(desc)
	if err != nil {
		return desc
	}
	one := func(t string) string {
		dims := len(t) - len(strings.TrimLeft(t, "["))
		if t[dims] != 'L' {
			return t
		}
		name := rename(strings.ReplaceAll(t[dims+1:len(t)-1], "/", "."))
		return t[:dims] + "L" + strings.ReplaceAll(name, ".", "/") + ";"
	}
	var b strings.Builder
	b.WriteByte('(')
	for _, p := range params {
		b.WriteString(one(p))
	}
	b.WriteByte(')')
	b.WriteString(one(ret))
	return b.String()
}

// restore resolves one method of the minified trace as docs/formats.md §19
// says, with the R8 map (r8) or the ProGuard map (no metadata).
func (ix *planIndex) restore(o Method, r8 bool) (Method, error) {
	c := ix.byObf[o.Class]
	if c == nil {
		if outer, suffix := outerClass(ix.byObf, o.Class); outer != nil {
			// Class only, with OUTER's source file.
			o.Class, o.Source = outer.Orig+suffix, ix.source(outer.Orig, o.Source, r8)
			o.Signature = ix.origTypes(o.Signature)
		}
		return o, nil // untouched
	}
	var cands []*MethodPlan
	for i := range c.Methods {
		if c.Methods[i].obf() == o.Name {
			cands = append(cands, &c.Methods[i])
		}
	}
	r := o
	r.Class, r.Source = c.Orig, ix.source(c.Orig, o.Source, r8)
	if len(cands) == 0 {
		// Class only: the method kept its name; its descriptor's types
		// are named back.
		r.Signature = ix.origTypes(o.Signature)
		return r, nil
	}
	var match []*MethodPlan
	for _, m := range cands {
		res := ix.renameTypes(m.Signature)
		if r8 && m.Residual != "" {
			res = m.Residual
		}
		if res == o.Signature {
			match = append(match, m)
		}
	}
	if len(match) == 0 {
		match = cands // by name alone
	}
	if len(match) > 1 {
		names := make([]string, len(match))
		for i, m := range match {
			names[i] = c.owner(m.Owner) + "." + m.Name + m.Signature
		}
		return r, fmt.Errorf("tracegen: %s.%s%s is ambiguous: %s", o.Class, o.Name, o.Signature, strings.Join(names, " | "))
	}
	m := match[0]
	r.Class, r.Name, r.Signature = c.owner(m.Owner), m.Name, m.Signature
	r.Source = ix.source(r.Class, o.Source, r8)
	return r, nil
}

// source is a resolved method's source file: the sourceFile metadata of
// its owner's class line (R8 maps only), else the trace's own.
func (ix *planIndex) source(owner, trace string, r8 bool) string {
	if c := ix.byOrig[owner]; r8 && c != nil && c.hasSourceMeta() {
		return c.File
	}
	return plainSource(trace)
}

// plainSource is a trace's source column as a file name: SourceFile,
// Unknown Source and r8-map-id-… name none.
func plainSource(s string) string {
	if s == "SourceFile" || s == "Unknown Source" || strings.HasPrefix(s, "r8-map-id-") {
		return ""
	}
	return s
}

// parseDescriptor splits a method descriptor into its parameter and return
// field descriptors.
func parseDescriptor(desc string) (params []string, ret string, err error) {
	if !strings.HasPrefix(desc, "(") {
		return nil, "", fmt.Errorf("descriptor %q does not start with (", desc)
	}
	s := desc[1:]
	for !strings.HasPrefix(s, ")") {
		t, rest, err := fieldType(s, desc)
		if err != nil {
			return nil, "", err
		}
		params, s = append(params, t), rest
	}
	ret, rest, err := fieldType(s[1:], desc)
	if err == nil && rest != "" {
		err = fmt.Errorf("descriptor %q: %q after the return type", desc, rest)
	}
	return params, ret, err
}

func fieldType(s, desc string) (t, rest string, err error) {
	i := 0
	for i < len(s) && s[i] == '[' {
		i++
	}
	if i == len(s) {
		return "", "", fmt.Errorf("descriptor %q is cut short", desc)
	}
	switch s[i] {
	case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z', 'V':
		return s[:i+1], s[i+1:], nil
	case 'L':
		if j := strings.IndexByte(s[i:], ';'); j > 1 {
			return s[:i+j+1], s[i+j+1:], nil
		}
	}
	return "", "", fmt.Errorf("descriptor %q: bad type at %q", desc, s)
}

var javaPrimitives = map[byte]string{
	'B': "byte", 'C': "char", 'D': "double", 'F': "float", 'I': "int",
	'J': "long", 'S': "short", 'Z': "boolean", 'V': "void",
}

// javaType writes a field descriptor in Java source form, as maps do:
// [Lcom/a/B; is com.a.B[].
func javaType(t string) string {
	dims := len(t) - len(strings.TrimLeft(t, "["))
	name := javaPrimitives[t[dims]]
	if t[dims] == 'L' {
		name = strings.ReplaceAll(t[dims+1:len(t)-1], "/", ".")
	}
	return name + strings.Repeat("[]", dims)
}

// javaSignature splits a valid descriptor into the return type and the
// parameter list in Java source form.
func javaSignature(desc string) (ret, params string) {
	ps, r, _ := parseDescriptor(desc)
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = javaType(p)
	}
	return javaType(r), strings.Join(names, ",")
}
