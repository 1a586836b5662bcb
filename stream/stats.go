package stream

import (
	"fmt"
	"strings"
)

// Stats counts every repair the stack policy made and every oddity of the
// input. None is fatal unless Options.Strict is set.
type Stats struct {
	OrphanExits    int64 `json:"orphan_exits"`       // exits with an empty stack: frames opened at the trace start
	OpenAtEnd      int64 `json:"open_at_end"`        // frames still open when tracing stopped, ended at the trace end
	ImplicitExits  int64 `json:"implicit_exits"`     // frames ended because a frame below them exited
	DroppedExits   int64 `json:"dropped_exits"`      // exits of a method not on the (non-empty) stack
	BadActions     int64 `json:"bad_actions"`        // records with action 3, dropped
	UnknownMethods int64 `json:"unknown_methods"`    // distinct method ids missing from the method table
	UnknownThreads int64 `json:"unknown_threads"`    // distinct thread ids missing from the thread table
	BackwardsTimes int64 `json:"backwards_times"`    // times smaller than the thread's previous one, clamped
	Wraps          int64 `json:"time_wraps"`         // 32-bit time counters that wrapped around
	LostBytes      int64 `json:"lost_bytes"`         // bytes of a record cut off at the end of the input
	Overflow       bool  `json:"data_file_overflow"` // data-file-overflow=true: every thread stopped recording early
	// DeepFrames counts the frames nested deeper than the depth limit
	// (convert.Options.MaxDepth): their enters and exits were dropped, so
	// their time is the self time of the frame at the limit.
	DeepFrames int64 `json:"deep_frames,omitempty"`
	// DeepOrphans counts the orphan exits dropped because as many orphan
	// frames as the depth limit already enclosed their thread: each would
	// have nested everything before it one level deeper.
	DeepOrphans int64 `json:"deep_orphan_exits,omitempty"`
}

// Repair is one nonzero count, for printing.
type Repair struct {
	Name  string // plural, e.g. "orphan exits"
	One   string // singular, e.g. "orphan exit"
	Count int64
}

// String reads "1 orphan exit" or "3 orphan exits".
func (r Repair) String() string {
	if r.Count == 1 {
		return "1 " + r.One
	}
	return fmt.Sprintf("%d %s", r.Count, r.Name)
}

// Repairs lists the nonzero counts in a fixed order.
func (s *Stats) Repairs() []Repair {
	all := []Repair{
		{"orphan exits", "orphan exit", s.OrphanExits},
		{"frames open at the end", "frame open at the end", s.OpenAtEnd},
		{"implicit exits", "implicit exit", s.ImplicitExits},
		{"dropped exits", "dropped exit", s.DroppedExits},
		{"dropped bad actions", "dropped bad action", s.BadActions},
		{"unknown method ids", "unknown method id", s.UnknownMethods},
		{"unknown threads", "unknown thread", s.UnknownThreads},
		{"backwards times", "backwards time", s.BackwardsTimes},
		{"time wraps", "time wrap", s.Wraps},
		{"bytes lost in a record cut off at the end", "byte lost in a record cut off at the end", s.LostBytes},
		{"frames nested deeper than the depth limit, folded into the frame at the limit (--max-depth)", "frame nested deeper than the depth limit, folded into the frame at the limit (--max-depth)", s.DeepFrames},
		{"orphan exits beyond the depth limit, dropped (--max-depth)", "orphan exit beyond the depth limit, dropped (--max-depth)", s.DeepOrphans},
	}
	if s.Overflow {
		all = append(all, Repair{"data-file-overflow=true (recording stopped early on every thread)", "data-file-overflow=true (recording stopped early on every thread)", 1})
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
		if s.Overflow && r.Name == r.One {
			parts = append(parts, r.Name)
			continue
		}
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}
