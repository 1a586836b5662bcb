package driver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// threadLabel is a thread as the zero-match error lists it.
type threadLabel struct {
	name string
	id   int64
}

// recordedThreads are the threads with records that the filter dropped,
// then the trace's listed threads without records.
func recordedThreads(dropped []stream.Thread, listed []parser.Thread) (with, without []threadLabel) {
	seen := make(map[int64]bool, len(dropped))
	for _, th := range dropped {
		with = append(with, threadLabel{th.Name, int64(th.ID)})
		seen[int64(th.ID)] = true
	}
	for _, th := range listed {
		if !seen[int64(th.ID)] {
			without = append(without, threadLabel{th.Name, int64(th.ID)})
		}
	}
	return with, without
}

// maxListed is how many threads the zero-match error names in each list.
const maxListed = 8

// noThreadMatches is the error when --thread kept no thread: a data error
// (the flag is fine, this input has no such thread) that names the
// threads with records (ts) to choose from, then those listed without
// any (without).
func (in *Input) noThreadMatches(total int, with string, ts []threadLabel, without ...threadLabel) error {
	list := "it lists none"
	if len(ts) > 0 {
		list = "its threads: " + labels(ts)
		if len(without) > 0 {
			list = fmt.Sprintf("its threads with %s: %s; listed without %s: %s", with, labels(ts), with, labels(without))
		}
	} else if len(without) > 0 {
		list = fmt.Sprintf("listed without %s: %s", with, labels(without))
	}
	threads := "threads"
	if total == 1 {
		threads = "thread"
	}
	return fmt.Errorf("%s: --thread %s matched none of the %d %s with %s; %s",
		in.Name(), strings.Join(in.d.opt.Flags.Threads, " --thread "), total, threads, with, list)
}

// labels lists threads as "main" (tid 1), at most maxListed of them.
func labels(ts []threadLabel) string {
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
	return b.String()
}
