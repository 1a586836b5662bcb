package tracegen

import (
	"fmt"
	"strings"
)

// R8 returns the plan as R8 writes mapping.txt (map version 2.2,
// docs/formats.md §19): the header with the map id, then per class its class
// line, its sourceFile and synthesized metadata, its field lines and its
// method lines. A method's inline chain comes first (the inlinees
// innermost first, then the method at the call site's line, all on one
// output range), then the method's own range; its residualsignature and
// synthesized metadata follow its first line. Line numbers are invented:
// output ranges count up from 1 in each class.
func (p *Plan) R8() []byte {
	var b strings.Builder
	b.WriteString("# compiler: R8\n# compiler_version: 8.12.14\n# min_api: 26\n# common_typos_disable\n")
	b.WriteString(`# {"id":"com.android.tools.r8.mapping","version":"2.2"}` + "\n")
	if p.MapID != "" {
		fmt.Fprintf(&b, "# pg_map_id: %s\n# pg_map_hash: SHA-256 %s\n", p.MapID, p.MapID)
	}
	for i := range p.Classes {
		p.Classes[i].write(&b, true)
	}
	return []byte(b.String())
}

// ProGuard returns the plan as ProGuard writes mapping.txt: no header and no
// metadata, and a method's own range without an original range, which
// ProGuard's format reads as "the same lines". What only metadata can say
// (sourceFile, residual signatures, synthesized) is lost.
func (p *Plan) ProGuard() []byte {
	var b strings.Builder
	for i := range p.Classes {
		p.Classes[i].write(&b, false)
	}
	return []byte(b.String())
}

const (
	metaSynthesized  = `{"id":"com.android.tools.r8.synthesized"}`
	metaRewriteFrame = `{"id":"com.android.tools.r8.rewriteFrame","conditions":["throws(Ljava/lang/NullPointerException;)"],"actions":["removeInnerFrames(1)"]}`
)

func (c *ClassPlan) write(b *strings.Builder, r8 bool) {
	fmt.Fprintf(b, "%s -> %s:\n", c.Orig, c.Obf)
	if r8 && c.hasSourceMeta() {
		fmt.Fprintf(b, "# {\"id\":\"sourceFile\",\"fileName\":%q}\n", c.File)
	}
	if r8 && c.Synthesized {
		b.WriteString("# " + metaSynthesized + "\n")
	}
	for _, f := range c.Fields {
		b.WriteString("    " + f + "\n")
	}
	line := 1 // the next output line
	for k := range c.Methods {
		m := &c.Methods[k]
		orig := 10 + 20*k // the method's first original line
		ret, params := javaSignature(m.Signature)
		name := c.qualify(m.Owner, m.Name)
		first := true
		meta := func() {
			if !r8 || !first {
				return
			}
			first = false
			if m.Residual != "" {
				fmt.Fprintf(b, "      # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":%q}\n", m.Residual)
			}
			if m.Synthesized {
				b.WriteString("      # " + metaSynthesized + "\n")
			}
		}
		if m.NoLines {
			fmt.Fprintf(b, "    %s %s(%s) -> %s\n", ret, name, params, m.obf())
			meta()
			continue
		}
		if len(m.Inlined) > 0 {
			start, end := line, line+4
			line = end + 1
			for i, in := range m.Inlined {
				iret, iparams := javaSignature(in.Signature)
				at := fmt.Sprintf(":%d", 500+10*i) // the call site in the caller
				if i == 0 {
					at = fmt.Sprintf(":%d:%d", 500, 504) // the innermost frame's own lines
				}
				fmt.Fprintf(b, "    %d:%d:%s %s(%s)%s -> %s\n", start, end, iret, c.qualify(in.Owner, in.Name), iparams, at, m.obf())
				if r8 && in.RewriteFrame {
					b.WriteString("      # " + metaRewriteFrame + "\n")
				}
			}
			fmt.Fprintf(b, "    %d:%d:%s %s(%s):%d -> %s\n", start, end, ret, name, params, orig+1, m.obf())
			meta()
		}
		start, end := line, line+2
		line = end + 1
		if r8 {
			fmt.Fprintf(b, "    %d:%d:%s %s(%s):%d:%d -> %s\n", start, end, ret, name, params, orig, orig+2, m.obf())
		} else {
			fmt.Fprintf(b, "    %d:%d:%s %s(%s) -> %s\n", start, end, ret, name, params, m.obf())
		}
		meta()
	}
}

// qualify writes a method's original name as a map line does: qualified
// with its owner when that is not the class.
func (c *ClassPlan) qualify(owner, name string) string {
	if owner == "" || owner == c.Orig {
		return name
	}
	return owner + "." + name
}
