package info

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/stacks"
)

// Sampled is the report on a sampled profile, in the form of its JSON;
// the text form prints the same fields. Sampled is always true: it tells the report
// from a method trace's in a list.
type Sampled struct {
	File        string `json:"file"`
	Sampled     bool   `json:"sampled"`
	Format      string `json:"format"`
	Compressed  bool   `json:"gzip"`
	Created     string `json:"created,omitempty"`
	Timed       bool   `json:"timed"` // cpu=times: counts are calls, and stacks have elapsed time
	Stacks      int    `json:"stacks"`
	Count       int64  `json:"count"`
	CountOf     string `json:"count_of"` // "samples", or "calls" when timed
	StatedTotal int64  `json:"stated_total,omitempty"`
	// ElapsedNanos is cpu=times' time: elapsed (wall) time, not thread
	// CPU time (docs/sampled-profiles.md). CPUNanos and StatedCPU repeat
	// the elapsed times under the names earlier versions gave them.
	ElapsedNanos  int64           `json:"elapsed_time_ns,omitempty"`
	StatedElapsed int64           `json:"stated_elapsed_time_ns,omitempty"`
	CPUNanos      int64           `json:"cpu_time_ns,omitempty"`        // deprecated: ElapsedNanos
	StatedCPU     int64           `json:"stated_cpu_time_ns,omitempty"` // deprecated: StatedElapsed
	Frames        int             `json:"frames"`
	MaxDepth      int             `json:"max_depth"`
	DepthLimited  bool            `json:"depth_limited"`
	CutStacks     int             `json:"cut_stacks"`
	Truncated     bool            `json:"truncated"`
	Unlisted      []Unlisted      `json:"unlisted"`
	Deobf         *Deobf          `json:"deobfuscation,omitempty"` // with --mapping only
	Focus         *Focus          `json:"focus,omitempty"`         // with --thread or --root only
	Notes         []string        `json:"notes"`
	Threads       []SampledThread `json:"threads"`

	// The fields below are of profiles whose samples have times (Perfetto
	// traces, simpleperf profiles).

	// SpanNanos is the time from the file's first stack sample to its last.
	SpanNanos int64 `json:"span_ns,omitempty"`
	// PeriodNanos is the CPU time a sample stands for, when the file
	// states it (Period says how), and EstimatedCPUNanos the samples'
	// CPU time so estimated.
	PeriodNanos       int64  `json:"period_ns,omitempty"`
	Period            string `json:"period,omitempty"`
	EstimatedCPUNanos int64  `json:"estimated_cpu_ns,omitempty"`
	// Processes are the file's processes with stack samples; the report
	// is of the one Selected marks.
	Processes []SampledProcess `json:"processes,omitempty"`
	Repairs   []Unlisted       `json:"repairs,omitempty"`
}

// SampledProcess is a process of a file of several, with all its stack
// samples; Selected marks the one read (--process, or the one with the
// most samples).
type SampledProcess struct {
	PID      int64  `json:"pid"`
	Name     string `json:"name"`
	Samples  int64  `json:"samples"`
	Selected bool   `json:"selected"`
}

// Unlisted counts the samples the profile left out of its stacks, for one
// reason.
type Unlisted struct {
	Reason string `json:"reason"`
	Count  int64  `json:"count"`
}

// SampledThread is a listed thread, or (Listed false, ID 0) the stacks the
// file gives no thread for.
type SampledThread struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	Group        string `json:"group,omitempty"`
	Listed       bool   `json:"listed"`
	Stacks       int    `json:"stacks"`
	Count        int64  `json:"count"` // samples, or calls when timed
	ElapsedNanos int64  `json:"elapsed_time_ns,omitempty"`
	CPUNanos     int64  `json:"cpu_time_ns,omitempty"` // deprecated: ElapsedNanos
}

// NewSampled describes the tree of a sampled profile from what its file
// states (stacks.Tree.Source), read from the input called name; gz says
// whether the input was gzip-compressed.
func NewSampled(name string, s *stacks.Tree, gz bool) *Sampled {
	p := s.Source()
	r := &Sampled{
		File: name, Sampled: true, Format: p.Format, Compressed: gz, Created: p.Created,
		Timed: s.Values().Kind == stacks.Timed, Stacks: p.Stacks, Count: p.Count, CountOf: "samples", StatedTotal: p.StatedCount,
		ElapsedNanos: p.TimeNanos, CPUNanos: p.TimeNanos,
		StatedElapsed: p.StatedTimeNanos, StatedCPU: p.StatedTimeNanos, Frames: p.Frames, MaxDepth: p.MaxDepth,
		DepthLimited: p.DepthLimited, CutStacks: p.CutStacks, Truncated: p.Truncated,
		Unlisted: []Unlisted{}, Notes: append([]string{}, p.Notes...), Deobf: newDeobf(s.Trace()),
		Focus: newFocus(s.Trace()),
	}
	for _, u := range p.Unlisted {
		r.Unlisted = append(r.Unlisted, Unlisted(u))
	}
	if r.Timed {
		r.CountOf = "calls"
	}
	if p.Timeline {
		r.SpanNanos, r.PeriodNanos, r.Period = p.SpanNanos, s.Values().Period, p.Period
		r.EstimatedCPUNanos = s.EstimatedCPU(p.Count)
		for i, pr := range p.Processes {
			r.Processes = append(r.Processes, SampledProcess{PID: pr.PID, Name: pr.Name, Samples: pr.Samples, Selected: i == p.Process})
		}
		for _, rp := range p.Repairs {
			r.Repairs = append(r.Repairs, Unlisted{Reason: rp.What, Count: rp.Count})
		}
	}
	for _, th := range p.Threads {
		r.Threads = append(r.Threads, SampledThread{ID: th.ID, Name: th.Name, Group: th.Group, Listed: th.Listed,
			Stacks: th.Stacks, Count: th.Count, ElapsedNanos: th.TimeNanos, CPUNanos: th.TimeNanos})
	}
	if r.Threads == nil {
		r.Threads = []SampledThread{}
	}
	if r.Focus != nil { // the threads --thread dropped have no samples left
		r.Threads = slices.DeleteFunc(r.Threads, func(th SampledThread) bool { return th.Stacks == 0 })
	}
	return r
}

// WriteText writes the report as aligned text.
func (r *Sampled) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	row("file", "%s", r.File)
	format := r.Format
	if r.Compressed {
		format += ", gzip"
	}
	row("format", "%s", format)
	if r.Created != "" {
		row("created", "%s", r.Created)
	}
	if len(r.Processes) > 0 {
		r.writeTimed(row)
	} else {
		row("timeline", "none: stacks are counted, not traced (perfetto needs a method trace)")
		r.writeTotals(row)
	}
	row("frames", "%s distinct", units.Count(int64(r.Frames)))
	row("depth", "%s", r.depth())
	row("threads", "%s", r.threadSummary())
	if len(r.Unlisted) == 0 {
		row("unlisted", "none")
	}
	for _, u := range r.Unlisted {
		row("unlisted", "%s: %s", plural(u.Count, "sample"), u.Reason)
	}
	if r.Deobf != nil {
		row("mapping", "%s", r.Deobf.summary)
	}
	if r.Focus != nil {
		row("focus", "%s", r.Focus.summary)
	}
	for _, n := range r.Notes {
		row("note", "%s", n)
	}
	tw.Flush()
	fmt.Fprintln(w)
	r.writeThreads(w)
}

// writeTotals prints the samples (or calls and elapsed time) and the totals
// the file states.
func (r *Sampled) writeTotals(row func(k, format string, args ...any)) {
	in := fmt.Sprintf("in %s", plural(int64(r.Stacks), "distinct stack"))
	if r.Timed {
		row("calls", "%s %s", units.Count(r.Count), in)
		row("elapsed", "%s (the file's total: %s; hprof's cpu=times measures wall time, not thread CPU time)", units.Duration(r.ElapsedNanos), units.Duration(r.StatedElapsed))
		return
	}
	row("samples", "%s %s (the file's total: %s)", units.Count(r.Count), in, units.Count(r.StatedTotal))
}

// writeTimed prints what a profile of timed samples adds: its span, its
// processes, its samples and their period.
func (r *Sampled) writeTimed(row func(k, format string, args ...any)) {
	row("timeline", "%s from the first stack sample to the last: perfetto, speedscope and dump show the samples in time", units.Duration(r.SpanNanos))
	for _, pr := range r.Processes {
		name := pr.Name
		if name == "" {
			name = "(no name)"
		}
		mark := ""
		if pr.Selected {
			mark = "  ← read (--process NAME|PID for another)"
			if len(r.Processes) == 1 {
				mark = ""
			}
		}
		row("process", "%d %s: %s%s", pr.PID, strings.ReplaceAll(name, "\t", " "), plural(pr.Samples, "sample"), mark)
	}
	row("samples", "%s in %s", units.Count(r.Count), plural(int64(r.Stacks), "distinct stack"))
	if r.PeriodNanos > 0 {
		row("period", "%s of CPU time a sample (%s): about %s of CPU time in all", units.Duration(r.PeriodNanos), r.Period, units.Duration(r.EstimatedCPUNanos))
	} else {
		row("period", "not stated (%s): samples are counted, CPU time is not estimated", cmpOr(r.Period, "no CPU-clock timebase"))
	}
	for _, rp := range r.Repairs {
		row("repaired", "%s %s (named [unknown …])", units.Count(rp.Count), rp.Reason)
	}
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func (r *Sampled) depth() string {
	s := "up to " + plural(int64(r.MaxDepth), "frame")
	if r.DepthLimited && r.CutStacks > 0 {
		s += fmt.Sprintf("; the profiler cuts stacks at a depth limit: %s may miss outer frames",
			plural(int64(r.CutStacks), "stack"))
	}
	return s
}

func (r *Sampled) threadSummary() string {
	listed := 0
	for _, t := range r.Threads {
		if t.Listed {
			listed++
		}
	}
	s := fmt.Sprintf("%d listed", listed)
	if n := len(r.Threads); n > 0 && !r.Threads[n-1].Listed {
		if r.Threads[n-1].Stacks == r.Stacks {
			return s + "; no stack says which thread it ran on"
		}
		return s + fmt.Sprintf("; %s say no thread", plural(int64(r.Threads[n-1].Stacks), "stack"))
	}
	return s
}

func (r *Sampled) writeThreads(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if r.Timed {
		fmt.Fprintln(tw, "ID\tSTACKS\tCALLS\tELAPSED\t\tTHREAD")
	} else {
		fmt.Fprintln(tw, "ID\tSTACKS\tSAMPLES\t\tTHREAD")
	}
	for _, t := range r.Threads {
		id := fmt.Sprint(t.ID)
		if !t.Listed {
			id = "-"
		}
		name := strings.ReplaceAll(t.Name, "\t", " ")
		if t.Group != "" {
			name += " (group " + strings.ReplaceAll(t.Group, "\t", " ") + ")"
		}
		if r.Timed {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\t%s\n", id, t.Stacks, units.Count(t.Count), units.Duration(t.ElapsedNanos), name)
		} else {
			fmt.Fprintf(tw, "%s\t%d\t%s\t\t%s\n", id, t.Stacks, units.Count(t.Count), name)
		}
	}
	tw.Flush()
}

// plural counts n of a noun whose plural takes an s (units.Plural).
func plural(n int64, noun string) string { return units.Plural(n, noun, noun+"s") }
