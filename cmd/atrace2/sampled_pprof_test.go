package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atrace2/atrace2/info"
)

// TestSampledPprof: the profile of two sampled files (the second the first
// with 3 more samples of Long.parseLong) holds the sums per stack.
func TestSampledPprof(t *testing.T) {
	_, f := sampledFiles(t)
	out := filepath.Join(t.TempDir(), "s.pb.gz")
	if code, _, errOut := runCLI(t, nil, "pprof", "-q", "-o", out, f["app.hprof"], f["new.hprof"]); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p := parseProfile(t, data)
	if len(p.SampleType) != 1 || p.SampleType[0].Type != "samples" || p.DefaultSampleType != "samples" {
		t.Errorf("sample types %v, default %q", p.SampleType, p.DefaultSampleType)
	}
	got := valuesByKey(p)
	for k, v := range map[string]int64{
		"main  java.lang.Long.parseLong;com.example.App.parse;com.example.App.main": 5 + 8,
		"main  com.example.App.parse;com.example.App.main":                          3 + 3,
		"worker  com.example.App.parse;com.example.Worker.run":                      1 + 1,
	} {
		if len(got[k]) != 1 || got[k][0] != v {
			t.Errorf("%s: %v, want %d", k, got[k], v)
		}
	}
	var total int64
	for _, v := range got {
		total += v[0]
	}
	if total != 13+16 || p.Mapping[0].File != f["app.hprof"]+", "+f["new.hprof"] {
		t.Errorf("total %d, want 29; mapping %q", total, p.Mapping[0].File)
	}
	// cpu=times: calls and elapsed (wall) time per stack.
	code, stdout, _ := runCLI(t, nil, "pprof", "-q", f["times.hprof"])
	if code != 0 {
		t.Fatalf("cpu=times: exit %d", code)
	}
	p = parseProfile(t, []byte(stdout))
	v := valuesByKey(p)["main  java.lang.Long.parseLong;com.example.App.parse;com.example.App.main"]
	if p.DefaultSampleType != "wall" || len(v) != 2 || v[0] != 5 || v[1] != 40e6 {
		t.Errorf("cpu=times: default %q, values %v", p.DefaultSampleType, v)
	}
}

// TestSampledPprofHTTP serves pprof's web UI for a sampled profile.
func TestSampledPprofHTTP(t *testing.T) {
	_, f := sampledFiles(t)
	s, done, stdout, stderr := serve(t, "pprof", "-q", "--http", "127.0.0.1:0", "--no-browser", f["app.hprof"])
	client := &http.Client{Timeout: 30 * time.Second}
	body := fetch(t, client, s.url+"top")
	s.stop()
	for _, want := range []string{"com.example.App.parse", "java.lang.Long.parseLong"} {
		if !strings.Contains(body, want) {
			t.Errorf("/ui/top does not mention %s:\n%.500s", want, body)
		}
	}
	select {
	case code := <-done:
		if code != 0 || stdout.Len() != 0 {
			t.Errorf("exit %d, %d bytes on stdout: %s", code, stdout.Len(), stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("the command did not return within a minute of stopping")
	}
}

// TestSampledSpeedscope: one sampled profile per thread.
func TestSampledSpeedscope(t *testing.T) {
	_, f := sampledFiles(t)
	code, out, errOut := runCLI(t, nil, "speedscope", "-q", f["app.hprof"])
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Name     string `json:"name"`
		Profiles []struct {
			Type     string  `json:"type"`
			Name     string  `json:"name"`
			Unit     string  `json:"unit"`
			EndValue int64   `json:"endValue"`
			Samples  [][]int `json:"samples"`
			Weights  []int64 `json:"weights"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Name != "app.hprof (samples)" || len(doc.Profiles) != 2 {
		t.Fatalf("name %q, %d profiles", doc.Name, len(doc.Profiles))
	}
	for i, want := range []struct {
		name string
		end  int64
	}{{"main (thread 1)", 10}, {"worker (thread 2)", 3}} {
		p := doc.Profiles[i]
		if p.Type != "sampled" || p.Name != want.name || p.Unit != "none" || p.EndValue != want.end || len(p.Samples) != len(p.Weights) {
			t.Errorf("profile %d: %s %q %s end %d, %d samples %d weights", i, p.Type, p.Name, p.Unit, p.EndValue, len(p.Samples), len(p.Weights))
		}
	}
}

// TestSampledCorpus reads the real JVM hprof file of the corpus. The
// numbers come from samples' own corpus test, counted with grep and awk:
// 267 samples in 173 stacks, 171 of them 8 frames deep (depth=8).
func TestSampledCorpus(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "corpus", "pjstadig-deque-clojure__java.hprof.txt")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus file absent (%v)", err)
	}
	code, out, errOut := runCLI(t, nil, "info", "--format", "json", path)
	var r info.Sampled
	if code != 0 || errOut != "" || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if r.Format != "JVM hprof text, cpu=samples" || r.Count != 267 || r.Stacks != 173 || r.CutStacks != 171 || r.MaxDepth != 8 {
		t.Errorf("info: %+v", r)
	}
	code, out, _ = runCLI(t, nil, "folded", path)
	var total int64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		n, err := strconv.ParseInt(line[strings.LastIndexByte(line, ' ')+1:], 10, 64)
		if err != nil {
			t.Fatalf("folded line %q: %v", line, err)
		}
		total += n
	}
	if code != 0 || total != 267 {
		t.Errorf("folded: exit %d, %d samples, want 267", code, total)
	}
	// The busiest method: the file's rows for two_buffer_case.invoke add
	// up to 55 samples (awk on the CPU SAMPLES section).
	code, out, _ = runCLI(t, nil, "top", "-n", "1", "--wide", path)
	if code != 0 || !strings.Contains(out, "          55  20.6%            70  26.2%  name.stadig.deque$two_buffer_case.invoke") {
		t.Errorf("top: exit %d\n%s", code, out)
	}
}
