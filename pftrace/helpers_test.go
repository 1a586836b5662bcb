package pftrace_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/pftrace"
	"github.com/atrace2/atrace2/samples"
)

// rawName is a frame's name as the trace gives it: the mangled symbol of a
// demangled native frame, the obfuscated name of a frame the trace's
// mapping renamed, else its name.
func rawName(f *samples.Frame) string {
	switch {
	case f.Symbol != "":
		return f.Symbol
	case f.Obfuscated != "":
		return f.Obfuscated
	}
	return f.Name
}

// stackString joins a sample's raw frame names, root first, as tracegen's
// StackExpect keys stacks.
func stackString(p *samples.Profile, s *samples.Sample) string {
	names := make([]string, len(s.Stack))
	for i, f := range s.Stack {
		names[i] = rawName(&p.Frames[f])
	}
	return strings.Join(names, ";")
}

// counts keys a profile's samples as tracegen.StackExpect.Counts does.
func counts(p *samples.Profile) map[tracegen.StackCount]int64 {
	out := map[tracegen.StackCount]int64{}
	for i := range p.Samples {
		s := &p.Samples[i]
		th := p.Threads[s.Thread]
		out[tracegen.StackCount{PID: th.PID, TID: th.TID, Stack: stackString(p, s)}] += s.Count
	}
	return out
}

// readAll reads the profile of every process of a trace.
func readAll(t *testing.T, data []byte, sel samples.Select) []*samples.Profile {
	t.Helper()
	p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{Select: sel})
	if err != nil {
		t.Fatal(err)
	}
	var out []*samples.Profile
	for _, proc := range p.Processes {
		s := sel
		s.Process = strconv.FormatInt(proc.PID, 10)
		q, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{Select: s})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Check(); err != nil {
			t.Fatalf("process %d: %v", proc.PID, err)
		}
		out = append(out, q)
	}
	return out
}

// allCounts adds up the counts of every process's profile.
func allCounts(ps []*samples.Profile) map[tracegen.StackCount]int64 {
	out := map[tracegen.StackCount]int64{}
	for _, p := range ps {
		for k, v := range counts(p) {
			out[k] += v
		}
	}
	return out
}

// diffCounts reports the first differences between two count maps.
func diffCounts(t *testing.T, what string, got, want map[tracegen.StackCount]int64) {
	t.Helper()
	n := 0
	for k, w := range want {
		if g := got[k]; g != w {
			t.Errorf("%s: pid %d tid %d stack %s: %d samples, want %d", what, k.PID, k.TID, clip(k.Stack), g, w)
			n++
		}
		if n > 5 {
			t.FailNow()
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: pid %d tid %d stack %s: %d samples, want none", what, k.PID, k.TID, clip(k.Stack), g)
			n++
		}
		if n > 5 {
			t.FailNow()
		}
	}
}

func clip(s string) string {
	if len(s) > 160 {
		return "…" + s[len(s)-160:]
	}
	return s
}
