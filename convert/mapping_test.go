package convert_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// obfuscatedTrace is a small trace of a minified build: a framework method
// the map does not name, two methods of a mapped class that the map lists,
// and one it does not list (R8 kept its name). Names and descriptors are
// such that resolving by name alone and by descriptor agree.
func obfuscatedTrace() *tracegen.Trace {
	b := tracegen.NewBuilder(tracegen.Trace{Version: 3, Clock: "dual", VM: "art", Start: 1_370_000_000_000_000})
	loop := b.Method("android.os.Looper", "loop", "()V", "Looper.java")
	bind := b.Method("a.b", "a", "(I)V", "Feed.kt")
	load := b.Method("a.b", "b", "()V", "")
	kept := b.Method("a.b", "onClick", "()V", "")
	main := b.Thread(1, "main")
	main.Call(loop, 5, 4, func() {
		main.Call(bind, 10, 8, func() { main.Call(load, 3, 2, nil) })
		main.Call(kept, 2, 1, nil)
		main.Call(bind, 1, 1, nil)
	})
	other := b.Thread(2, "worker")
	other.Call(load, 7, 6, nil)
	return b.Trace()
}

const obfuscatedMap = `# compiler: R8
com.example.Feed -> a.b:
    void bind(int) -> a
    void load() -> b
`

// wantMappedFrames are the frames of obfuscatedTrace named by
// obfuscatedMap, in order of first use.
var wantMappedFrames = []string{
	"android.os.Looper.loop ()V android/os/Looper.java obf= ",
	"com.example.Feed.bind (I)V com/example/Feed.kt obf=a.b.a (I)V",
	"com.example.Feed.load ()V  obf=a.b.b ()V",
	"com.example.Feed.onClick ()V  obf=a.b.onClick ()V",
}

func describeFrames(fs []stream.Frame) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s obf=%s %s", f.Name, f.Signature, f.File, f.Obfuscated, f.ObfuscatedSignature))
	}
	return out
}

// readMap reads a map for the methods of the trace in data.
func readMap(t *testing.T, data []byte, text string) *mapping.Map {
	t.Helper()
	f, err := openBytes(t, data, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mapping.Read(strings.NewReader(text), "mapping.txt", convert.MappingMethods(f.Header))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMapping: a mapping names the frames once, before any exporter sees
// them, and counts one resolution per distinct method used, alike in every
// way convert reads a trace: the first pass alone, one read, two reads and
// the speculative read of a timeline, serial and pipelined, scanned or read
// once with the definitions after the records that use them.
func TestMapping(t *testing.T) {
	tr := obfuscatedTrace()
	want := mapping.Counts{}
	want[mapping.Untouched], want[mapping.Mapped], want[mapping.ClassOnly] = 1, 2, 1
	layouts := map[string][]byte{
		"regular":   tr.Regular(),
		"streaming": tr.Streaming(tracegen.StreamOptions{}),
		"late defs": tr.Streaming(tracegen.StreamOptions{DefineAfterUse: true}),
	}
	var ref []string
	for _, layout := range []string{"regular", "streaming", "late defs"} {
		data := layouts[layout]
		m := readMap(t, data, obfuscatedMap)
		for _, once := range []bool{false, true} {
			if once && layout == "regular" {
				continue
			}
			for _, serial := range []bool{true, false} {
				popt := parser.Options{SkipStreamingScan: once}
				opt := convert.Serial(convert.Options{Mapping: m}, serial)
				for _, how := range []string{"analyze", "one read", "two reads", "timeline"} {
					name := fmt.Sprintf("%s/once=%v/serial=%v/%s", layout, once, serial, how)
					st, lines := runMapped(t, data, popt, opt, how)
					if got := describeFrames(st.Frames); !slices.Equal(got, wantMappedFrames) {
						t.Errorf("%s: frames\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(wantMappedFrames, "\n"))
					}
					if st.Deobf == nil || *st.Deobf != *convert.Deobf(m, want) {
						t.Errorf("%s: counts %+v, want %+v", name, st.Deobf, convert.Deobf(m, want))
					}
					if how == "analyze" {
						continue
					}
					if ref == nil {
						ref = lines
					} else if !slices.Equal(lines, ref) {
						t.Errorf("%s: events\n%s\nwant\n%s", name, strings.Join(lines, "\n"), strings.Join(ref, "\n"))
					}
				}
			}
		}
	}
	if len(ref) == 0 || !strings.Contains(strings.Join(ref, "\n"), "main 1 begin com.example.Feed.bind") {
		t.Errorf("events do not name the renamed frames:\n%s", strings.Join(ref, "\n"))
	}
}

// runMapped converts data one way and returns the trace and the events,
// named at Finish.
func runMapped(t *testing.T, data []byte, popt parser.Options, opt convert.Options, how string) (*stream.Trace, []string) {
	t.Helper()
	f, err := openBytes(t, data, popt)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st *stream.Trace
	x := &atFinish{}
	switch how {
	case "analyze":
		st, err = convert.Analyze(f, opt)
	case "one read":
		st, err = convert.Run(f, opt, convert.Aggregate(x))
	case "two reads":
		st, err = convert.Run(f, convert.TwoReads(opt), convert.Aggregate(x))
	case "timeline":
		st, err = convert.Run(f, opt, convert.Timeline(x, func() error { *x = atFinish{}; return nil }))
	}
	if err != nil {
		t.Fatalf("%s: %v", how, err)
	}
	return st, x.lines
}

// TestMappingNone: without a mapping the frames are today's, with no
// obfuscated names and no counts.
func TestMappingNone(t *testing.T) {
	data := obfuscatedTrace().Regular()
	st, _ := runMapped(t, data, parser.Options{}, convert.Options{}, "one read")
	if st.Deobf != nil {
		t.Errorf("counts without a map: %+v", st.Deobf)
	}
	f, err := openBytes(t, data, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, fr := range st.Frames {
		if want := convert.TableFrame(fr.ID, parser.MethodID(fr.MethodID), f.Header); !reflect.DeepEqual(fr, want) {
			t.Errorf("frame %+v, want %+v", fr, want)
		}
	}
	if st.Frames[1].Name != "a.b.a" {
		t.Errorf("frame 1 is %q, want a.b.a", st.Frames[1].Name)
	}
}

// TestMappingStrict: with Strict, a method the map resolves by name only
// fails the conversion; a map that resolves every method is no error. The
// map below gives bind a parameter the trace's descriptor does not have,
// so a map that checks descriptors resolves it by name only.
func TestMappingStrict(t *testing.T) {
	data := obfuscatedTrace().Regular()
	analyze := func(m *mapping.Map, strict bool) (*stream.Trace, error) {
		f, err := openBytes(t, data, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return convert.Analyze(f, convert.Options{Mapping: m, Strict: strict})
	}
	if _, err := analyze(readMap(t, data, obfuscatedMap), true); err != nil {
		t.Fatalf("a resolved map under Strict: %v", err)
	}
	mismatch := readMap(t, data, "com.example.Feed -> a.b:\n    void bind(long) -> a\n    void load() -> b\n")
	st, err := analyze(mismatch, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Deobf.NameOnly != 1 {
		t.Fatalf("counts %+v, want one method by name only", st.Deobf)
	}
	_, err = analyze(mismatch, true)
	if !errors.Is(err, convert.ErrStrict) || !strings.Contains(err.Error(), "1 methods by name only") {
		t.Errorf("Strict with a signature mismatch: %v", err)
	}
}

// openBytes opens data, written to a file, as a trace.
func openBytes(t *testing.T, data []byte, popt parser.Options) (*parser.File, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "case.trace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return parser.Open(path, popt)
}
