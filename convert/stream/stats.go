package stream

import (
	"fmt"
	"strings"
)

// Stats counts every repair the stack policy made and every oddity of the
// input. None is fatal unless Options.Strict is set.
type Stats struct {
	OrphanExits    int64 // exits with an empty stack: frames opened at the trace start
	OpenAtEnd      int64 // frames still open when tracing stopped, ended at the trace end
	ImplicitExits  int64 // frames ended because a frame below them exited
	DroppedExits   int64 // exits of a method not on the (non-empty) stack
	BadActions     int64 // records with action 3, dropped
	UnknownMethods int64 // distinct method ids missing from the method table
	UnknownThreads int64 // distinct thread ids missing from the thread table
	BackwardsTimes int64 // times smaller than the thread's previous one, clamped
	Wraps          int64 // 32-bit time counters that wrapped around
	LostBytes      int64 // bytes of a record cut off at the end of the input
	Overflow       bool  // data-file-overflow=true: every thread stopped recording early
}

// Repair is one nonzero count, for printing.
type Repair struct {
	Name  string // e.g. "orphan exits"
	Count int64
}

// Repairs lists the nonzero counts in a fixed order.
func (s *Stats) Repairs() []Repair {
	all := []Repair{
		{"orphan exits", s.OrphanExits},
		{"frames open at the end", s.OpenAtEnd},
		{"implicit exits", s.ImplicitExits},
		{"dropped exits", s.DroppedExits},
		{"dropped bad actions", s.BadActions},
		{"unknown method ids", s.UnknownMethods},
		{"unknown threads", s.UnknownThreads},
		{"backwards times", s.BackwardsTimes},
		{"time wraps", s.Wraps},
		{"truncated tail bytes", s.LostBytes},
	}
	if s.Overflow {
		all = append(all, Repair{"data-file-overflow", 1})
	}
	out := all[:0]
	for _, r := range all {
		if r.Count != 0 {
			out = append(out, r)
		}
	}
	return out
}

// Summary is one line naming the repairs, or "" when there were none.
func (s *Stats) Summary() string {
	var parts []string
	for _, r := range s.Repairs() {
		if r.Name == "data-file-overflow" {
			parts = append(parts, "data-file-overflow=true (recording stopped early on every thread)")
			continue
		}
		parts = append(parts, fmt.Sprintf("%d %s", r.Count, r.Name))
	}
	return strings.Join(parts, ", ")
}
