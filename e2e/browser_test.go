package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
)

// checkFile is one entry of check-speedscope.mjs's manifest.
type checkFile struct {
	Path  string `json:"path"`
	Title string `json:"title"`
}

type manifest struct {
	Dist     string      `json:"dist"`
	Shots    string      `json:"shots"`
	Chromium string      `json:"chromium"`
	Files    []checkFile `json:"files"`
}

// browserSetup finds node, chromium and the npm packages, or skips (fails
// when ATRACE2_E2E=require).
func browserSetup(t *testing.T) (node, chromium, dist string) {
	missing := func(what string) {
		msg := what + ": run .ci/setup-browser.sh to install chromium and the npm packages"
		if os.Getenv("ATRACE2_E2E") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	chromium = os.Getenv("ATRACE2_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		missing("no chromium at " + chromium)
	}
	here := filepath.Join(repoRoot(t), "e2e")
	dist = filepath.Join(here, "node_modules", "speedscope", "dist", "release")
	for _, p := range []string{filepath.Join(dist, "index.html"), filepath.Join(here, "node_modules", "playwright-core", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			missing("no " + p)
		}
	}
	return node, chromium, dist
}

// outputs converts one trace into speedscope (wall and, with cpu, thread
// CPU) and folded files in dir and returns them with the page titles
// speedscope must show: the file's name field for speedscope JSON, the
// file name for folded stacks. A trace atrace2 rejects gives none.
func outputs(t *testing.T, dir, trace string, cpu bool) []checkFile {
	base := filepath.Base(trace)
	stem := filepath.Join(dir, strings.ReplaceAll(base, ".", "_"))
	type run struct {
		args  []string
		out   string
		title string
	}
	clock := traceClock(t, trace)
	if clock == "" {
		return nil
	}
	timeline := " (wall clock)"
	if clock == "thread-cpu" {
		timeline = " (thread CPU clock)"
	}
	runs := []run{
		{[]string{"speedscope"}, stem + ".speedscope.json", base + timeline},
		{[]string{"folded"}, stem + ".folded", filepath.Base(stem) + ".folded"},
	}
	if cpu {
		runs = append(runs,
			run{[]string{"speedscope", "--clock", "cpu"}, stem + "-cpu.speedscope.json", base + " (thread CPU clock)"},
			run{[]string{"folded", "--clock", "cpu", "--no-thread"}, stem + "-cpu.folded", filepath.Base(stem) + "-cpu.folded"})
	}
	var files []checkFile
	for _, r := range runs {
		res := atrace2(t, nil, append(append(r.args, "-q", "-o", r.out), trace)...)
		if res.code != 0 {
			t.Fatalf("atrace2 %v %s: %s", r.args, base, res.stderr)
		}
		files = append(files, checkFile{Path: r.out, Title: r.title + " - speedscope"})
	}
	return files
}

// traceClock asks atrace2 info which clocks a trace has; "" when atrace2
// cannot read it.
func traceClock(t *testing.T, trace string) string {
	res := atrace2(t, nil, "info", "-q", "--format", "json", trace)
	var info struct {
		Clock string `json:"clock"`
	}
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &info) != nil {
		t.Logf("%s: not readable, skipped: %s", filepath.Base(trace), strings.TrimSpace(res.stderr))
		return ""
	}
	return info.Clock
}

// The controls that prove each check can fail: broken closes a frame that
// is not on top, which speedscope's importer rejects; badUnit loads in
// speedscope but has a unit its schema does not allow.
const (
	broken = `{"$schema":"https://www.speedscope.app/file-format-schema.json","name":"broken",
"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[{"type":"evented","name":"t",
"unit":"microseconds","startValue":0,"endValue":10,
"events":[{"type":"O","at":0,"frame":0},{"type":"C","at":5,"frame":1}]}]}`
	badUnit = `{"$schema":"https://www.speedscope.app/file-format-schema.json","name":"bad unit",
"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","name":"t",
"unit":"ticks","startValue":0,"endValue":10,
"events":[{"type":"O","at":0,"frame":0},{"type":"C","at":5,"frame":0}]}]}`
)

// controls are the files that must fail, and what their report must say.
var controls = map[string]struct{ body, title, says string }{
	"broken.speedscope.json":   {broken, "broken", `Tried to leave frame "b" while frame "a" was at the top`},
	"bad-unit.speedscope.json": {badUnit, "bad unit", "schema: data/profiles/0/unit must be equal to one of the allowed values"},
}

func TestSpeedscopeInBrowser(t *testing.T) {
	node, chromium, dist := browserSetup(t)
	dir := t.TempDir()
	files := outputs(t, dir, sampleTrace(t), true)
	files = append(files, outputs(t, dir, policyTrace(t), true)...)
	files = append(files, sampledOutputs(t, dir)...)
	if testing.Short() {
		t.Log("-short: the corpus traces are left out")
	} else {
		for _, c := range testutil.CorpusTraces(t) {
			files = append(files, outputs(t, dir, c, false)...)
		}
	}
	for name, c := range controls {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, checkFile{Path: path, Title: c.title + " - speedscope"})
	}

	shots := os.Getenv("ATRACE2_E2E_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	m, _ := json.Marshal(manifest{Dist: dist, Shots: shots, Chromium: chromium, Files: files})
	mpath := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(mpath, m, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(repoRoot(t), "e2e", "check-speedscope.mjs"), mpath)
	cmd.Dir = filepath.Join(repoRoot(t), "e2e")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("check-speedscope.mjs: %v\n%s", err, out)
	}
	checkReport(t, string(out), files)
	t.Logf("screenshots of %d files in %s", len(files), shots)
}

// checkReport wants OK for every file but the controls, and FAIL with the
// expected error for each control.
func checkReport(t *testing.T, out string, files []checkFile) {
	status := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		for _, verdict := range []string{"OK ", "FAIL "} {
			if rest, ok := strings.CutPrefix(line, verdict); ok {
				path, _, _ := strings.Cut(rest, ": ")
				status[path] = line
			}
		}
	}
	for _, f := range files {
		line := status[f.Path]
		c, isControl := controls[filepath.Base(f.Path)]
		switch {
		case isControl:
			if !strings.HasPrefix(line, "FAIL ") || !strings.Contains(line, c.says) {
				t.Errorf("control %s was not rejected with %q: %q", filepath.Base(f.Path), c.says, line)
			}
		case !strings.HasPrefix(line, "OK "):
			t.Errorf("%s: %q", filepath.Base(f.Path), line)
		}
	}
	if t.Failed() {
		t.Logf("check-speedscope.mjs said:\n%s", out)
	}
}
