package samplegen

import (
	"bytes"
	"fmt"
	"strings"
)

// MethodRef names a method the way ART's MethodReference does; Pretty
// prints it as PrettyMethod(…, with_signature=true) would.
type MethodRef struct {
	Class  string   // dotted, e.g. com.foo.Bar$Inner
	Name   string   // method name
	Params []string // JVM descriptors, e.g. I, [Ljava/lang/String;
	Return string   // JVM descriptor, e.g. V
}

// Method is one line of an ART profile file.
type Method struct {
	MethodRef
	Count  int64   // the line's total count
	Size   int64   // code size in 16-bit code units
	Chains []Chain // bounded-stack mode: the call chains ending here
}

// Chain is one "<dexPc>:<count>:<context>" entry.
type Chain struct {
	PC      uint32
	Count   int64
	Callers []Caller // innermost caller first; none prints an empty context
}

// Caller is one "<method>@<dexPc>" step of a context.
type Caller struct {
	MethodRef
	PC uint32
}

// ART describes an ART profile file.
type ART struct {
	Samples, Null, Boot int64 // line 1
	Methods             []Method
	Bounded             bool // bounded-stack mode: every line gets its chain list
}

// Text writes the file as ProfileSampleResults::Write does.
func (a *ART) Text() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d/%d/%d\n", a.Samples, a.Null, a.Boot)
	for _, m := range a.Methods {
		fmt.Fprintf(&b, "%s/%d/%d", m.Pretty(), m.Count, m.Size)
		if a.Bounded {
			chains := make([]string, len(m.Chains))
			for i, c := range m.Chains {
				ctx := make([]string, len(c.Callers))
				for j, cl := range c.Callers {
					ctx[j] = fmt.Sprintf("%s@%d", cl.Pretty(), cl.PC)
				}
				chains[i] = fmt.Sprintf("%d:%d:%s", c.PC, c.Count, strings.Join(ctx, "@"))
			}
			fmt.Fprintf(&b, "/[%s]", strings.Join(chains, "#"))
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// Pretty is "<return> <class>.<name>(<param>, <param>)" with type names as
// PrettyDescriptor prints them.
func (m MethodRef) Pretty() string {
	params := make([]string, len(m.Params))
	for i, p := range m.Params {
		params[i] = PrettyDescriptor(p)
	}
	return fmt.Sprintf("%s %s.%s(%s)", PrettyDescriptor(m.Return), m.Class, m.Name, strings.Join(params, ", "))
}

// Signature is the method's JVM descriptor, "(<params>)<return>".
func (m MethodRef) Signature() string {
	return "(" + strings.Join(m.Params, "") + ")" + m.Return
}

var primitiveNames = map[string]string{
	"V": "void", "Z": "boolean", "B": "byte", "C": "char", "S": "short",
	"I": "int", "J": "long", "F": "float", "D": "double",
}

// PrettyDescriptor turns a JVM type descriptor into a Java type name:
// [Ljava/lang/String; becomes java.lang.String[].
func PrettyDescriptor(d string) string {
	dims := len(d) - len(strings.TrimLeft(d, "["))
	d = d[dims:]
	name := d
	if n, ok := primitiveNames[d]; ok {
		name = n
	} else if strings.HasPrefix(d, "L") && strings.HasSuffix(d, ";") {
		name = strings.ReplaceAll(d[1:len(d)-1], "/", ".")
	}
	return name + strings.Repeat("[]", dims)
}
