package mapping

// This file is the package's interface: the types, Read, CheckID, TraceIDs
// and LooksObfuscated. The reader is in read.go, the lines it understands in
// line.go and meta.go, Resolve in resolve.go and Open in open.go.

import (
	"fmt"
	"io"
	"sort"
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
	Mapped                  // one original method, its descriptor matched (or the trace has no descriptor)
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
	// Name is <owner>.<name>; when several original methods remain
	// (Ambiguous, or NameOnly with several), their names sorted and joined
	// by " | " (a name twice for overloads of one name).
	Name   string
	Class  string // the owner (with several candidates, the first's)
	Method string // the method name (with several candidates, the first's)
	// Signature is the original descriptor with original types (with
	// several candidates, the first's). Untouched: the trace's. ClassOnly:
	// the trace's with its class types deobfuscated.
	Signature string
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
// Resolve answers only for those methods (and others of their classes);
// it only reads the Map, so it is safe for concurrent use.
type Map struct {
	Name     string   // the file, as given
	ID       string   // the # pg_map_id: line's id; "" when the map has none
	Version  string   // the com.android.tools.r8.mapping version; "" when the map has none (ProGuard)
	Warnings []string // "NAME:LINE: what", for lines the reader skipped or did not understand; capped, the last line counts the rest

	classes   map[string]*class // obfuscated name → class line, for the trace's classes and their outer classes
	owners    map[string]*owner // original name → the class line of a method line's qualified owner
	obfOrig   map[string]string // a descriptor class of the trace → the original name of its class line
	origNames map[string]bool   // the descriptor classes of the trace that are a class line's original name
	dropped   int               // warnings beyond maxWarnings
}

// Read streams a mapping file (gzip-compressed or not) and keeps what the
// given methods need. A file that is not a mapping is an error; a
// malformed line is a warning. When a method moved to a class whose class
// line came earlier in the file (rule 5 wants its sourceFile), and r is an
// io.ReadSeeker, Read reads the file a second time for those class lines
// only; otherwise such a method's source falls back to the trace's.
func Read(r io.Reader, name string, methods []Method) (*Map, error) {
	var again func() (io.Reader, func(), error)
	if rs, ok := r.(io.ReadSeeker); ok {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil {
			again = func() (io.Reader, func(), error) {
				_, err := rs.Seek(start, io.SeekStart)
				return rs, func() {}, err
			}
		}
	}
	return read(r, name, methods, again)
}

// mapIDPrefix starts the source column R8 writes for the classes it
// touched since AGP 8.12 (docs/formats.md §19.6).
const mapIDPrefix = "r8-map-id-"

// TraceIDs returns the distinct map ids the trace's source column names
// (r8-map-id-<id>, written by R8 since AGP 8.12), sorted.
func TraceIDs(methods []Method) []string {
	seen := map[string]bool{}
	var ids []string
	for _, m := range methods {
		id, ok := strings.CutPrefix(m.Source, mapIDPrefix)
		if !ok || id == "" || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// minIDPrefix is the shortest id that matches a longer one by prefix.
const minIDPrefix = 7

// sameID reports whether two map ids name the same map: equal, or one a
// prefix of the other of at least minIDPrefix characters (R8 wrote
// 7-character ids, now 64; templates can change both), ignoring case.
func sameID(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	n := min(len(a), len(b))
	if len(a) != len(b) && n < minIDPrefix {
		return false
	}
	return strings.EqualFold(a[:n], b[:n])
}

// CheckID returns an error naming both ids when the trace names map ids
// and none is the map's. A map without a pg_map_id cannot be checked and
// passes.
func (m *Map) CheckID(traceIDs []string) error {
	if len(traceIDs) == 0 || m.ID == "" {
		return nil
	}
	for _, id := range traceIDs {
		if sameID(id, m.ID) {
			return nil
		}
	}
	return fmt.Errorf("%s: map id %s is not the trace's (r8-map-id-%s): the map belongs to another build",
		m.Name, m.ID, strings.Join(traceIDs, ", r8-map-id-"))
}

// frameworkPrefixes are packages that R8 does not rename in an app's
// trace: the platform and the libraries the platform ships.
var frameworkPrefixes = []string{
	"java.", "javax.", "android.", "androidx.", "kotlin.", "kotlinx.", "dalvik.",
	"com.android.", "sun.", "libcore.", "org.apache.harmony.",
}

// LooksObfuscated reports whether a trace's methods look minified: a
// source column r8-map-id-…, or among the app classes (outside the
// framework packages) at least three, and a quarter or more, with a short
// lowercase name (a.b.c, o2) or the source SourceFile.
func LooksObfuscated(methods []Method) bool {
	apps := map[string]bool{} // app class → looks minified
	for _, m := range methods {
		if strings.HasPrefix(m.Source, mapIDPrefix) {
			return true
		}
		if isFramework(m.Class) {
			continue
		}
		apps[m.Class] = apps[m.Class] || m.Source == "SourceFile" || shortName(m.Class)
	}
	k := 0
	for _, minified := range apps {
		if minified {
			k++
		}
	}
	return k >= 3 && 4*k >= len(apps)
}

func isFramework(class string) bool {
	for _, p := range frameworkPrefixes {
		if strings.HasPrefix(class, p) {
			return true
		}
	}
	return false
}

// shortName reports whether every part of a dotted class name (the outer
// class only) is one to three lowercase letters or digits, starting with a
// letter, as R8's minifier names them.
func shortName(class string) bool {
	if i := strings.IndexByte(class, '$'); i >= 0 {
		class = class[:i]
	}
	if class == "" {
		return false
	}
	for part := range strings.SplitSeq(class, ".") {
		if len(part) == 0 || len(part) > 3 || part[0] < 'a' || part[0] > 'z' {
			return false
		}
		for i := 1; i < len(part); i++ {
			if c := part[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}
