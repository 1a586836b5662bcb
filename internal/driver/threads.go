package driver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/parser"
)

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
// (the flag is fine, this input has no such thread) that names some of its
// threads to choose from.
func (in *Input) noThreadMatches(total int, with string, ts []threadLabel) error {
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
		in.Name(), strings.Join(in.d.opt.Flags.Threads, " --thread "), total, threads, with, list)
}
