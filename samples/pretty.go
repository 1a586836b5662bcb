package samples

import "strings"

// prettyFrame parses ART's PrettyMethod text,
//
//	void com.foo.Bar.baz(int, java.lang.String[])
//
// into class com.foo.Bar, method baz and the JVM descriptor
// (I[Ljava/lang/String;)V. The descriptor is the signature form the method
// traces use (stream.Frame.Signature), so every input gives frames alike.
// Text of another shape ("null", "<runtime method>.<…>") keeps its whole
// text as the name, split at its last dot.
func prettyFrame(s string) Frame {
	ret, rest, ok := strings.Cut(s, " ")
	open := strings.IndexByte(rest, '(')
	if ok && open > 0 && strings.HasSuffix(rest, ")") && !strings.ContainsAny(rest[:open], " ,") {
		if sig, ok := descriptor(ret, rest[open+1:len(rest)-1]); ok {
			f := splitName(rest[:open])
			f.Signature = sig
			return f
		}
	}
	return splitName(s)
}

func splitName(name string) Frame {
	f := Frame{Name: name, Method: name}
	if dot := strings.LastIndexByte(name, '.'); dot > 0 {
		f.Class, f.Method = name[:dot], name[dot+1:]
	}
	return f
}

// descriptor builds "(<params>)<return>" from PrettyDescriptor type names
// separated by ", ".
func descriptor(ret, params string) (string, bool) {
	var b strings.Builder
	b.WriteByte('(')
	if params != "" {
		for _, p := range strings.Split(params, ", ") {
			if p == "void" || !typeDescriptor(&b, p) {
				return "", false
			}
		}
	}
	b.WriteByte(')')
	if !typeDescriptor(&b, ret) {
		return "", false
	}
	return b.String(), true
}

var primitives = map[string]byte{
	"void": 'V', "boolean": 'Z', "byte": 'B', "char": 'C', "short": 'S',
	"int": 'I', "long": 'J', "float": 'F', "double": 'D',
}

// typeDescriptor appends the descriptor of a type name such as int[][] or
// java.lang.String; false for text that is no type name.
func typeDescriptor(b *strings.Builder, t string) bool {
	for strings.HasSuffix(t, "[]") {
		t = t[:len(t)-2]
		b.WriteByte('[')
	}
	if c, ok := primitives[t]; ok {
		b.WriteByte(c)
		return true
	}
	if t == "" || strings.ContainsAny(t, " ,()[]/;") {
		return false
	}
	b.WriteByte('L')
	b.WriteString(strings.ReplaceAll(t, ".", "/"))
	b.WriteByte(';')
	return true
}
