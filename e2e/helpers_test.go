package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
)

// repoRoot is the module root.
func repoRoot(t testing.TB) string { return testutil.RepoRoot(t) }

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// binary builds atrace2 once per test run, and the sample trace too when
// testdata/sample.trace is missing.
func binary(t testing.TB) string {
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "atrace2-e2e-"); buildErr != nil {
			return
		}
		runs := [][]string{{"build", "-o", filepath.Join(buildDir, "atrace2"), "./cmd/atrace2"}}
		if _, err := os.Stat(filepath.Join(repoRoot(t), "testdata", "sample.trace")); err != nil {
			runs = append(runs, []string{"run", "./internal/tracegen/cmd/gensample", "-o", filepath.Join(buildDir, "sample.trace")})
		}
		for _, args := range runs {
			cmd := exec.Command("go", args...)
			cmd.Dir = repoRoot(t)
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go %s: %v\n%s", args[0], err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "atrace2")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// sampleTrace is testdata/sample.trace, or gensample's output while that
// file does not exist yet.
func sampleTrace(t testing.TB) string {
	binary(t)
	path := filepath.Join(repoRoot(t), "testdata", "sample.trace")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	return filepath.Join(buildDir, "sample.trace")
}

// policyTrace writes the stack-policy trace (every repair convert makes)
// as a binary file named policy.trace.
func policyTrace(t testing.TB) string {
	path := filepath.Join(t.TempDir(), "policy.trace")
	src := filepath.Join(repoRoot(t), "testdata", "golden", "speedscope", "policy-trace.txt")
	if err := tracegen.ConvertTextFile(src, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// corpusTraces lists the real traces in ../shared/corpus, or none.
func corpusTraces(t testing.TB) []string {
	dir := filepath.Join(repoRoot(t), "..", "shared", "corpus")
	names, _ := filepath.Glob(filepath.Join(dir, "*.trace*"))
	if len(names) == 0 {
		t.Logf("no corpus traces in %s: checking the sample and the policy trace only", dir)
	}
	return names
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// atrace2 runs the binary with stdin (may be nil).
func atrace2(t testing.TB, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running atrace2 %v: %v", args, err)
	}
	return r
}
