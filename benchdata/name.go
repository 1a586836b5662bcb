package benchdata

import (
	"slices"
	"strings"
)

// Key identifies a benchmark across files: "class#name", the name holding
// its params in brackets. A benchmark whose name has no brackets but whose
// file lists params gets them appended, sorted: "class#name[a=1,b=2]".
func (b *Benchmark) Key() string {
	k := b.Class + "#" + b.Name
	if len(b.Params) > 0 && !strings.Contains(b.Name, "[") {
		parts := make([]string, len(b.Params))
		for i, p := range b.Params {
			parts[i] = p.Name + "=" + p.Value
		}
		k += "[" + strings.Join(parts, ",") + "]"
	}
	return k
}

// nameParams reads the params of a parameterized test's name,
// "test[a=1,b=Partial(x=1,y=2)]": the part between the first '[' and the
// last ']', split at the commas outside parentheses, brackets and braces;
// each part is NAME=VALUE or NAME:VALUE, split at its first '=' or ':', and
// a part without either (or with an empty name or value) is left out, as
// the writer leaves it out. It returns nil when the name has no brackets.
func nameParams(name string) []Param {
	start, end := strings.IndexByte(name, '['), strings.LastIndexByte(name, ']')
	if start < 0 || end < start {
		return nil
	}
	var out []Param
	for _, part := range splitTop(name[start+1 : end]) {
		i := strings.IndexAny(part, "=:")
		if i < 1 || i == len(part)-1 {
			continue
		}
		out = append(out, Param{part[:i], part[i+1:]})
	}
	return slices.Clip(out)
}

// splitTop splits s at the commas that no bracket encloses.
func splitTop(s string) []string {
	var parts []string
	depth, from := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				parts = append(parts, s[from:i])
				from = i + 1
			}
		}
	}
	return append(parts, s[from:])
}
