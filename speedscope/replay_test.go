package speedscope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/stream"
)

// file is the speedscope file format (file-format-spec.ts), as much of it
// as atrace2 writes, with atrace2's own frame key "obfuscated". Decoding
// disallows unknown fields.
type file struct {
	Schema             string `json:"$schema"`
	Exporter           string `json:"exporter"`
	Name               string `json:"name"`
	ActiveProfileIndex *int   `json:"activeProfileIndex"`
	Shared             struct {
		Frames []struct {
			Name string `json:"name"`
			File string `json:"file,omitempty"`
			Line *int   `json:"line,omitempty"`
			// Obfuscated is atrace2's: the trace's name of a renamed frame.
			Obfuscated string `json:"obfuscated,omitempty"`
		} `json:"frames"`
	} `json:"shared"`
	Profiles []profile `json:"profiles"`
}

type profile struct {
	Type       string  `json:"type"`
	Name       string  `json:"name"`
	Unit       string  `json:"unit"`
	StartValue float64 `json:"startValue"`
	EndValue   float64 `json:"endValue"`
	Events     []struct {
		Type  string  `json:"type"`
		At    float64 `json:"at"`
		Frame int     `json:"frame"`
	} `json:"events"`
}

func decode(t *testing.T, data []byte) *file {
	t.Helper()
	var f file
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		t.Fatalf("decoding speedscope JSON: %v", err)
	}
	if d.More() {
		t.Fatal("data after the JSON value")
	}
	return &f
}

// unitNanos is how many ns one unit of a profile is.
var unitNanos = map[string]float64{"nanoseconds": 1, "microseconds": 1e3}

// exclusive maps stacks (nodes of a trie shared by the two sides of a
// comparison) to exclusive ns; zero times are left out.
type exclusive map[int]int64

// replay checks a file with speedscope's import rules (docs/outputs.md §3.2) and
// returns the exclusive time of every stack it builds.
func replay(t *testing.T, f *file, tr *trie) exclusive {
	t.Helper()
	if f.Schema != Schema {
		t.Errorf("$schema = %q", f.Schema)
	}
	if f.ActiveProfileIndex == nil || *f.ActiveProfileIndex < 0 || *f.ActiveProfileIndex >= max(len(f.Profiles), 1) {
		t.Errorf("activeProfileIndex %v out of range", f.ActiveProfileIndex)
	}
	seen := map[string]bool{}
	var names []string
	for i, fr := range f.Shared.Frames {
		key := fmt.Sprintf("%s|%s|%v", fr.Name, fr.File, fr.Line)
		if fr.Line != nil {
			key = fmt.Sprintf("%s|%s|%d", fr.Name, fr.File, *fr.Line)
		}
		if seen[key] {
			t.Errorf("frame %d %s is not de-duplicated", i, key)
		}
		seen[key] = true
		names = append(names, fr.Name+"@"+fr.File)
	}
	times := exclusive{}
	for _, p := range f.Profiles {
		replayProfile(t, &p, names, tr, times)
	}
	return dropZeros(times)
}

func replayProfile(t *testing.T, p *profile, names []string, tr *trie, times exclusive) {
	t.Helper()
	scale, ok := unitNanos[p.Unit]
	if p.Type != "evented" || !ok || p.StartValue != 0 || p.EndValue < p.StartValue {
		t.Errorf("profile %q: type %q unit %q start %v end %v", p.Name, p.Type, p.Unit, p.StartValue, p.EndValue)
		return
	}
	var stack []int
	nodes := []int{tr.root(p.Name)} // nodes[i] is the trie node of stack[:i]
	last := p.StartValue
	for i, ev := range p.Events {
		where := func() string { return fmt.Sprintf("profile %q event %d", p.Name, i) }
		switch {
		case ev.At < last:
			t.Fatalf("%s: at %v before %v", where(), ev.At, last)
		case ev.At > p.EndValue:
			t.Fatalf("%s: at %v after endValue %v", where(), ev.At, p.EndValue)
		case ev.Frame < 0 || ev.Frame >= len(names):
			t.Fatalf("%s: frame %d out of range", where(), ev.Frame)
		}
		if len(stack) > 0 {
			times[nodes[len(stack)]] += int64((ev.At - last) * scale)
		}
		last = ev.At
		switch ev.Type {
		case "O":
			stack = append(stack, ev.Frame)
			nodes = append(nodes[:len(stack)], tr.child(nodes[len(stack)-1], names[ev.Frame]))
		case "C":
			if len(stack) == 0 || stack[len(stack)-1] != ev.Frame {
				t.Fatalf("%s: closes frame %d, top is %v", where(), ev.Frame, stack)
			}
			stack = stack[:len(stack)-1]
		default:
			t.Fatalf("%s: type %q", where(), ev.Type)
		}
	}
	if len(stack) != 0 {
		t.Fatalf("profile %q: frames %v still open at the end", p.Name, stack)
	}
}

// trie numbers stack prefixes, so that replaying a deep stack costs one
// map lookup per event rather than building its whole name.
type trie struct {
	index   map[trieEdge]int
	parents []int
	names   []string
}

type trieEdge struct {
	parent int
	name   string
}

// root returns the node of an empty stack named name (a profile).
func (t *trie) root(name string) int { return t.child(-1, name) }

func (t *trie) child(parent int, name string) int {
	if t.index == nil {
		t.index = map[trieEdge]int{}
	}
	e := trieEdge{parent, name}
	id, ok := t.index[e]
	if !ok {
		id = len(t.names)
		t.index[e] = id
		t.parents = append(t.parents, parent)
		t.names = append(t.names, name)
	}
	return id
}

// key is "profile|frame;frame;…" for a node.
func (t *trie) key(id int) string {
	var parts []string
	for ; t.parents[id] >= 0; id = t.parents[id] {
		parts = append(parts, t.names[id])
	}
	slices.Reverse(parts)
	return t.names[id] + "|" + strings.Join(parts, ";")
}

// dropZeros removes stacks with no time: a zero-length interval adds
// nothing on either side.
func dropZeros(m exclusive) exclusive {
	for k, v := range m {
		if v == 0 {
			delete(m, k)
		}
	}
	return m
}

// strings names the stacks of m, for checks by hand on small traces.
func (t *trie) strings(m exclusive) map[string]int64 {
	out := map[string]int64{}
	for id, v := range m {
		out[t.key(id)] = v
	}
	return out
}

// streamExclusive computes the same map from the recorded event stream,
// without the exporter: on the clock the file should use, per thread,
// time between two events goes to the stack open between them.
func streamExclusive(rec *recorder, cpu bool, tr *trie) exclusive {
	times := exclusive{}
	nodes := make([][]int, len(rec.t.Threads)) // per thread, the node of each stack prefix
	last := make([]int64, len(rec.t.Threads))
	for i := range nodes {
		nodes[i] = []int{tr.root(ProfileName(&rec.t.Threads[i]))}
	}
	for _, ev := range rec.evs {
		at := ev.Wall
		if cpu {
			at = ev.CPU
		}
		n := nodes[ev.Thread]
		if len(n) > 1 {
			times[n[len(n)-1]] += at - last[ev.Thread]
		}
		last[ev.Thread] = at
		if ev.Kind == stream.Begin {
			fr := &rec.t.Frames[ev.Frame]
			nodes[ev.Thread] = append(n, tr.child(n[len(n)-1], fr.Name+"@"+fr.File))
		} else {
			nodes[ev.Thread] = n[:len(n)-1]
		}
	}
	return dropZeros(times)
}

// compareExclusive fails on any stack whose exclusive time differs.
func compareExclusive(t *testing.T, tr *trie, got, want exclusive) {
	t.Helper()
	bad := 0
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] && bad < 20 {
			bad++
			t.Errorf("stack %s: file gives %d ns, the stream %d ns", tr.key(k), got[k], want[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok && bad < 20 {
			bad++
			t.Errorf("stack %s: %d ns in the file, not in the stream", tr.key(k), got[k])
		}
	}
}
