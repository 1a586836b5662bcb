package convert

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// ThreadFilter keeps the threads that --thread names: a thread is kept
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

// The thread filter (Options.Threads) is applied where records are handed
// to the policy: a batch is cut into runs of one thread, and the runs of
// threads the filter drops never reach it (keptRecords). The check is made
// once per thread, when pass.thread first meets it; a dropped thread's
// state is marked skip and gets no stream.ThreadIndex. Without a filter,
// records goes straight to the policy's loop, unchanged.

// keptRecords applies the policy to the records of the kept threads of a
// batch, and drops the others'.
func (p *pass) keptRecords(batch []parser.Record) {
	for len(batch) > 0 {
		rid := batch[0].Thread
		n := 1
		for n < len(batch) && batch[n].Thread == rid {
			n++
		}
		run := batch[:n]
		batch = batch[n:]
		th := p.thread(rid)
		if th == nil {
			continue // the trace changed
		}
		if th.skip {
			p.skipped(th, run)
			continue
		}
		p.policyRecords(run)
	}
}

// skipped passes over a dropped thread's records. A counting pass still
// reads their wall times, so that the trace end (Trace.WallEnd, taken from
// every thread's clock by pass.wallEnd), where the kept threads' open
// frames end, is the whole trace's; what the clocks needed repairing is
// not counted.
func (p *pass) skipped(th *threadState, run []parser.Record) {
	if !p.mode.counts() {
		return
	}
	var uncounted stream.Stats
	for i := range run {
		if run[i].Action != parser.BadAction {
			th.wall.next(run[i].Wall, p.wrap32, &uncounted)
		}
	}
}
