package mapping

// This file is the package's interface. The implementation behind it is a
// placeholder that maps classes and resolves methods by name only.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// Method is a method as a trace names it.
type Method struct {
	Class     string // dotted (Dalvik's slashes already replaced)
	Name      string
	Signature string // dex descriptor with obfuscated class types; "" when the input has none
	Source    string // the trace's source column; "" when none
}

// Status says how a method was resolved.
type Status uint8

const (
	Untouched Status = iota // the class is not in the map: unchanged
	Mapped                  // one original method, its descriptor matched
	NameOnly                // no descriptor matched: resolved by name alone (signature mismatch)
	Ambiguous               // several original methods: the joined form
	ClassOnly               // the class is mapped, the method is not listed (or the class is ORIG(OUTER)$suffix)
)

var statusNames = [...]string{"untouched", "mapped", "name only", "ambiguous", "class only"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Result is a trace method as the app's source named it.
type Result struct {
	Name      string // <owner>.<name>; the sorted candidates joined by " | " when Ambiguous
	Class     string // the owner (when Ambiguous, the first candidate's)
	Method    string // the method name (when Ambiguous, the first candidate's)
	Signature string // the original descriptor, original types; the trace's when Untouched or ClassOnly
	Source    string // bare source file name ("FeedAdapter.kt"), "" for none; the trace's when Untouched
	Status    Status
	// Synthesized is set when the map marks the class or the method as
	// made by the compiler (com.android.tools.r8.synthesized).
	Synthesized bool
}

// Counts are how many methods resolved each way, indexed by Status.
type Counts [5]int

// Add counts one method.
func (c *Counts) Add(s Status) { c[s]++ }

// Changed is the number of methods the map renamed or whose class it
// renamed: everything but Untouched.
func (c *Counts) Changed() int { return c[Mapped] + c[NameOnly] + c[Ambiguous] + c[ClassOnly] }

// Map is what one mapping file says about the methods it was read for.
type Map struct {
	Name     string   // the file, as given
	ID       string   // the # pg_map_id: line's id; "" when the map has none
	Warnings []string // "NAME:LINE: what", for lines the reader skipped or did not understand

	classes map[string]*class // obfuscated name → class
}

type class struct {
	orig    string
	methods map[string][]string // obfuscated name → original names
}

// Read streams a mapping file once and keeps what the given methods need.
// A file that is not a mapping is an error; a malformed line is a warning.
func Read(r io.Reader, name string, methods []Method) (*Map, error) {
	m := &Map{Name: name, classes: map[string]*class{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cur *class
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			if id, ok := strings.CutPrefix(line, "# pg_map_id:"); ok {
				m.ID = strings.TrimSpace(id)
			}
			continue
		}
		l, r, ok := strings.Cut(line, "->")
		if !ok {
			continue
		}
		l, r = strings.TrimSpace(l), strings.TrimSpace(r)
		if before, found := strings.CutSuffix(r, ":"); found {
			cur = &class{orig: l, methods: map[string][]string{}}
			m.classes[before] = cur
			continue
		}
		if cur == nil {
			continue
		}
		if i := strings.IndexByte(l, '('); i >= 0 {
			sp := strings.LastIndexByte(l[:i], ' ')
			cur.methods[r] = append(cur.methods[r], l[sp+1:i])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// Open reads the mapping at path: a file, gzip-compressed or not, or a
// directory searched for mapping.txt files, of which the one whose
// pg_map_id is among the trace's ids (TraceIDs) is taken.
func Open(path string, methods []Method) (*Map, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, methods)
}

// TraceIDs returns the distinct map ids the trace's source column names
// (r8-map-id-<id>, written by R8 since AGP 8.12), sorted.
func TraceIDs(methods []Method) []string { return nil }

// CheckID returns an error naming both ids when the trace names map ids
// and none is the map's.
func (m *Map) CheckID(traceIDs []string) error { return nil }

// LooksObfuscated reports whether a trace's methods look minified: app
// classes with short lowercase names, r8-map-id- or SourceFile sources.
func LooksObfuscated(methods []Method) bool { return false }

// Resolve names one trace method.
func (m *Map) Resolve(meth Method) Result {
	res := Result{Name: meth.Class + "." + meth.Name, Class: meth.Class, Method: meth.Name, Signature: meth.Signature, Source: meth.Source}
	c, ok := m.classes[meth.Class]
	if !ok {
		return res
	}
	res.Class, res.Status = c.orig, ClassOnly
	if names := c.methods[meth.Name]; len(names) > 0 {
		res.Method, res.Status = names[len(names)-1], Mapped
	}
	res.Name = res.Class + "." + res.Method
	return res
}
