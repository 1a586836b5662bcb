package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stacks"
)

// threadFilter compiles --thread, nil without it; a pattern that is not a
// regular expression is a usage error.
func threadFilter(g *Globals) (*focus.ThreadFilter, error) {
	if len(g.Thread) == 0 {
		return nil, nil
	}
	f, err := focus.NewThreadFilter(g.Thread)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return f, nil
}

// threadLabel is a thread as the zero-match error lists it.
type threadLabel struct {
	name string
	id   int64
}

func listedThreads(ts []parser.Thread) []threadLabel {
	out := make([]threadLabel, len(ts))
	for i, th := range ts {
		out[i] = threadLabel{th.Name, int64(th.ID)}
	}
	return out
}

// maxListed is how many threads the zero-match error names.
const maxListed = 8

// noThreadMatches is the error when --thread kept no thread: a data error
// (the flag is fine, this trace has no such thread) that names some of the
// trace's threads to choose from.
func noThreadMatches(g *Globals, name string, total int, with string, ts []threadLabel) error {
	var b strings.Builder
	for i, th := range ts {
		if i == maxListed {
			fmt.Fprintf(&b, ", … (%d more)", len(ts)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (tid %d)", strconv.Quote(th.name), th.id)
	}
	list := "it lists none"
	if len(ts) > 0 {
		list = "its threads: " + b.String()
	}
	threads := "threads"
	if total == 1 {
		threads = "thread"
	}
	return fmt.Errorf("%s: --thread %s matched none of the %d %s with %s; %s",
		name, strings.Join(g.Thread, " --thread "), total, threads, with, list)
}

// focusSampledThreads applies --thread to a sampled profile: an ART
// profile has no threads (a usage error); hprof text keeps the samples of
// the matching threads and drops those without a thread.
func focusSampledThreads(g *Globals, src *input.Source, p *samples.Profile) (kept, total int, err error) {
	if p.Format == samples.ARTProfileMethod || p.Format == samples.ARTProfileBoundedStack {
		return 0, 0, usagef("%s: --thread: an %s has no threads to choose from (--thread applies to method traces and hprof text)", src.Name(), p.Format)
	}
	filter, err := threadFilter(g)
	if err != nil {
		return 0, 0, err
	}
	// The listing of the error names the threads with samples.
	var withSamples []threadLabel
	seen := make([]bool, len(p.Threads)+1)
	for _, s := range p.Samples {
		if !seen[s.Thread+1] {
			seen[s.Thread+1] = true
			if s.Thread < 0 {
				withSamples = append(withSamples, threadLabel{stacks.UnknownThreadName, 0})
			} else {
				th := &p.Threads[s.Thread]
				withSamples = append(withSamples, threadLabel{th.ThreadName(), th.ID})
			}
		}
	}
	kept, total = p.KeepThreads(func(th *samples.Thread) bool { return filter.Keep(th.ID, th.ThreadName()) })
	if kept == 0 {
		return 0, 0, noThreadMatches(g, src.Name(), total, "samples", withSamples)
	}
	return kept, total, nil
}
