package focus

import (
	"fmt"
	"regexp"
	"strconv"
)

// ThreadFilter keeps the threads that --thread names, for every input
// family (method traces and sampled profiles alike): a thread is kept
// when its name matches one of the patterns as an RE2 regular expression,
// unanchored, or its id, in decimal, is exactly one of them.
type ThreadFilter struct {
	patterns []string
	res      []*regexp.Regexp
	ids      map[int64]bool
}

// NewThreadFilter compiles the patterns; an invalid regular expression is
// an error that names it.
func NewThreadFilter(patterns []string) (*ThreadFilter, error) {
	f := &ThreadFilter{patterns: append([]string{}, patterns...), ids: make(map[int64]bool)}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("--thread %q: not a regular expression: %v", p, err)
		}
		f.res = append(f.res, re)
		if id, err := strconv.ParseInt(p, 10, 64); err == nil && strconv.FormatInt(id, 10) == p {
			f.ids[id] = true
		}
	}
	return f, nil
}

// Patterns returns the patterns as given.
func (f *ThreadFilter) Patterns() []string { return f.patterns }

// Keep reports whether the thread with this id and name is kept.
func (f *ThreadFilter) Keep(id int64, name string) bool {
	if f.ids[id] {
		return true
	}
	for _, re := range f.res {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}
