package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/atrace2/atrace2/proto"
)

// TestFocusLeavesOutEmptyThreads: after a window or a root, speedscope,
// Perfetto and top --per-thread leave out the threads the focus left nothing of, as pprof
// and folded stacks do. In threeThreads, main runs 0–70 µs, worker 5–90
// µs and render 10–100 µs (its C); --from 75us keeps worker and render,
// --root a.C.run render alone (worker's C exit is dropped: no C frame).
func TestFocusLeavesOutEmptyThreads(t *testing.T) {
	path := writeThreeThreads(t)
	for _, c := range []struct {
		focus  []string
		want   []string // the threads, in order
		active int      // speedscope's first profile: main, else the busiest
	}{
		{nil, []string{"main", "worker", "render"}, 0},
		{[]string{"--from", "75us"}, []string{"worker", "render"}, 1}, // 15 µs and 25 µs busy
		{[]string{"--root", "a.C.run"}, []string{"render"}, 0},
	} {
		dir := t.TempDir()
		ss, pf := filepath.Join(dir, "x.speedscope.json"), filepath.Join(dir, "x.perfetto-trace")
		args := append([]string{"convert", "-q", "--speedscope", ss, "--perfetto", pf}, c.focus...)
		if code, _, errOut := runCLI(t, nil, append(args, path)...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.focus, code, errOut)
		}
		var doc struct {
			Active   int `json:"activeProfileIndex"`
			Profiles []struct {
				Name string `json:"name"`
			} `json:"profiles"`
		}
		data, err := os.ReadFile(ss)
		if err != nil || json.Unmarshal(data, &doc) != nil {
			t.Fatalf("%v: speedscope: %v", c.focus, err)
		}
		var got []string
		for _, p := range doc.Profiles {
			got = append(got, p.Name)
		}
		var want []string
		for _, name := range c.want {
			want = append(want, name+" (tid "+map[string]string{"main": "11", "worker": "12", "render": "13"}[name]+")")
		}
		if !slices.Equal(got, want) || doc.Active != c.active {
			t.Errorf("%v: speedscope profiles %q, active %d; want %q, active %d", c.focus, got, doc.Active, want, c.active)
		}
		got = perfettoThreads(t, pf)
		if !slices.Equal(got, c.want) {
			t.Errorf("%v: Perfetto thread tracks %q, want %q", c.focus, got, c.want)
		}
		// top --per-thread: a table per thread the focus left something of.
		code, out, errOut := runCLI(t, nil, append(append([]string{"top", "-q", "--per-thread", "--format", "json"}, c.focus...), path)...)
		if code != exitOK {
			t.Fatalf("%v: top: exit %d: %s", c.focus, code, errOut)
		}
		var top struct {
			Tables []struct {
				Thread struct {
					Name string `json:"name"`
				} `json:"thread"`
			} `json:"tables"`
		}
		if err := json.Unmarshal([]byte(out), &top); err != nil {
			t.Fatalf("%v: top: %v", c.focus, err)
		}
		got = nil
		for _, tb := range top.Tables {
			got = append(got, tb.Thread.Name)
		}
		if slices.Sort(got); !slices.Equal(got, slices.Sorted(slices.Values(c.want))) {
			t.Errorf("%v: top --per-thread tables %q, want %q", c.focus, got, c.want)
		}
	}
}

// perfettoThreads are the names of the thread tracks of a Perfetto trace.
func perfettoThreads(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for len(data) > 0 {
		_, _, n := protowire.ConsumeTag(data)
		body, m := protowire.ConsumeBytes(data[max(n, 0):])
		if n < 0 || m < 0 {
			t.Fatal("not a Perfetto trace")
		}
		p := &pb.TracePacket{}
		if err := proto.Unmarshal(body, p); err != nil {
			t.Fatal(err)
		}
		if th := p.GetTrackDescriptor().GetThread(); th != nil {
			names = append(names, th.GetThreadName())
		}
		data = data[n+m:]
	}
	return names
}
