package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
)

// specs are the documents the code cites by section.
var specs = []string{"formats.md", "outputs.md"}

// citation matches "docs/formats.md §3.4" and the sections that follow it in
// one list ("docs/outputs.md §3.1, §3.4", "§1.2 and §1.5"). The gaps may hold
// a line break and a comment marker, because citations wrap across comment
// lines ("docs/formats.md\n// §10.6"). Inside docs/ a document cites the
// other without the folder ("formats.md §6.3").
var citation = regexp.MustCompile(`(?:docs/)?(formats|outputs)\.md((?:(?:[\s/#*]|,|and)*§[0-9]+(?:\.[0-9]+)*)+)`)

// sectionRef finds each section number in a citation's list.
var sectionRef = regexp.MustCompile(`§([0-9]+(?:\.[0-9]+)*)`)

// oldCitation matches the citations of the documents that lived outside the
// repository (FORMATS §3, OUTPUTS.md §2).
var oldCitation = regexp.MustCompile(`\b(FORMATS|OUTPUTS)(\.md)?\s+§`)

// heading matches a numbered heading: "## 3. The key text", "### 3.4 Lines".
var heading = regexp.MustCompile(`(?m)^#{2,4}\s+([0-9]+(?:\.[0-9]+)*)\.?\s`)

// sections returns the section numbers that have a heading in docs/name.
func sections(t *testing.T, root, name string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, m := range heading.FindAllSubmatch(b, -1) {
		got[string(m[1])] = true
	}
	if len(got) == 0 {
		t.Fatalf("docs/%s has no numbered headings", name)
	}
	return got
}

// sourceFiles walks the repository for the files that may cite the specs.
func sourceFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules":
				return filepath.SkipDir
			}
			// This package's own tests cite missing sections on purpose.
			if rel, _ := filepath.Rel(root, path); filepath.ToSlash(rel) == "internal/docs" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".txtar", ".md":
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// lineOf is the 1-based line of byte offset off in b.
func lineOf(b []byte, off int) int { return bytes.Count(b[:off], []byte("\n")) + 1 }

// badCitations lists, as "file:line: …", every citation in b (the text of
// file rel) of a section that has no heading, and every citation of the old
// documents.
func badCitations(rel string, b []byte, have map[string]map[string]bool) []string {
	var bad []string
	for _, m := range citation.FindAllSubmatchIndex(b, -1) {
		doc := string(b[m[2]:m[3]])
		list := b[m[4]:m[5]]
		for _, s := range sectionRef.FindAllSubmatchIndex(list, -1) {
			sec := string(list[s[2]:s[3]])
			if !have[doc+".md"][sec] {
				bad = append(bad, fmt.Sprintf("%s:%d: cites docs/%s.md §%s, which has no heading there",
					rel, lineOf(b, m[4]+s[0]), doc, sec))
			}
		}
	}
	for _, m := range oldCitation.FindAllIndex(b, -1) {
		bad = append(bad, fmt.Sprintf("%s:%d: cites %q, a document outside the repository: cite docs/formats.md or docs/outputs.md",
			rel, lineOf(b, m[0]), b[m[0]:m[1]]))
	}
	return bad
}

// TestCitations fails for every citation of a section of docs/formats.md or
// docs/outputs.md that the document does not have, naming file and line.
func TestCitations(t *testing.T) {
	root := testutil.RepoRoot(t)
	have := map[string]map[string]bool{}
	for _, name := range specs {
		have[name] = sections(t, root, name)
	}
	var bad []string
	cited := 0
	for _, path := range sourceFiles(t, root) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		cited += len(citation.FindAllIndex(b, -1))
		bad = append(bad, badCitations(filepath.ToSlash(rel), b, have)...)
	}
	for _, s := range bad {
		t.Error(s)
	}
	// The code cites the specs about 125 times; finding none means the
	// pattern broke, not that the code is clean.
	if cited < 50 {
		t.Errorf("found only %d citations of docs/formats.md and docs/outputs.md: is the pattern wrong?", cited)
	}
}

// TestCitationPattern checks that the test can fail: a missing section, a
// wrapped citation and a list are all found.
func TestCitationPattern(t *testing.T) {
	have := map[string]map[string]bool{
		"formats.md": {"3": true, "3.4": true, "10.6": true},
		"outputs.md": {"1.2": true},
	}
	src := "// see docs/formats.md §3.4 and docs/formats.md\n// §10.6, then\n" +
		"// docs/outputs.md §1.2, §1.9 and docs/formats.md §99.\n// FORMATS §3\n"
	got := badCitations("x.go", []byte(src), have)
	want := []string{
		`x.go:3: cites docs/outputs.md §1.9, which has no heading there`,
		`x.go:3: cites docs/formats.md §99, which has no heading there`,
		`x.go:4: cites "FORMATS §", a document outside the repository: cite docs/formats.md or docs/outputs.md`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// mdLink matches a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinks fails for every relative link in README.md and docs/*.md whose
// file does not exist.
func TestLinks(t *testing.T) {
	root := testutil.RepoRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{filepath.Join(root, "README.md")}, docs...)
	sort.Strings(files)
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			for _, m := range mdLink.FindAllStringSubmatch(sc.Text(), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, _, _ = strings.Cut(target, "#")
				if _, err := os.Stat(filepath.Join(filepath.Dir(path), target)); err != nil {
					t.Errorf("%s:%d: link to %s: no such file", rel, n, m[1])
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
}
