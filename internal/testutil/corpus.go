package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// CorpusDir returns the folder sub of the corpus of real files
// (../shared/corpus beside the checkout, or $ATRACE2_CORPUS when set, for
// a checkout elsewhere), or skips the test with a message when it is
// absent.
func CorpusDir(t testing.TB, sub string) string {
	t.Helper()
	root := os.Getenv("ATRACE2_CORPUS")
	if root == "" {
		root = filepath.Join(RepoRoot(t), "..", "shared", "corpus")
	}
	dir := filepath.Join(root, sub)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("the corpus folder %s is absent (../shared/corpus, or set ATRACE2_CORPUS): skipping the checks of real files", dir)
	}
	return dir
}
