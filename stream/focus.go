package stream

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/internal/units"
)

// FocusStats says what the focus kept of the trace: the threads
// (--thread), the window (--from/--to) and the root (--root), applied in
// that order. The zero value means no focus. Each stage fills its own
// fields; totals are of the trace as the earlier stages left it (the
// window's frames are those of the kept threads).
type FocusStats struct {
	// ThreadPatterns are the --thread patterns, in the order given; nil
	// when threads were not filtered. ThreadsKept of ThreadsTotal threads
	// with records (or samples) were kept: the others never reach the
	// stream, their records are not read past their thread id, and their
	// repairs are not counted.
	ThreadPatterns []string `json:"thread_patterns,omitempty"`
	ThreadsKept    int      `json:"threads_kept,omitempty"`
	ThreadsTotal   int      `json:"threads_total,omitempty"`
	// MainByPID names the thread that --thread main kept because its tid
	// is the pid (an app renamed its main thread), "" when none was.
	MainByPID string `json:"main_by_pid,omitempty"`
	// Dropped are the threads with records (or samples) that the patterns
	// dropped, in the order met (ID, Name and Listed only): what the
	// error of a filter that kept none lists first.
	Dropped []Thread `json:"-"`

	// Window is set with --from or --to: the closed window [From, To] in
	// ns since the trace start on the wall clock (To is the trace end when
	// --to is left out). FramesKept of FramesTotal frames (calls) met it,
	// and WallKept of WallTotal ns of exclusive wall time lay inside it.
	// (Filled by the window stage, package focus.)
	Window      bool  `json:"window,omitempty"`
	From        int64 `json:"from_ns,omitempty"`
	To          int64 `json:"to_ns,omitempty"`
	FramesKept  int64 `json:"frames_kept,omitempty"`
	FramesTotal int64 `json:"frames_total,omitempty"`
	WallKept    int64 `json:"wall_kept_ns,omitempty"`
	WallTotal   int64 `json:"wall_total_ns,omitempty"`

	// Root is the --root pattern, "" without one. (Its counts are filled by
	// the root stage, package focus.)
	Root string `json:"root,omitempty"`

	// Sampled says the window and the root kept samples of a sampled
	// profile with times (a Perfetto trace, a simpleperf profile):
	// SamplesKept of the SamplesTotal samples of the kept threads, where
	// a method trace counts frames and wall time.
	Sampled      bool  `json:"sampled,omitempty"`
	SamplesKept  int64 `json:"samples_kept,omitempty"`
	SamplesTotal int64 `json:"samples_total,omitempty"`
}

// Active reports whether any focus was asked for.
func (f *FocusStats) Active() bool {
	return f.ThreadPatterns != nil || f.Window || f.Root != ""
}

// Summary is one line on what the focus kept, or "" without a focus:
// "focus: 1 of 12 threads (--thread main)".
func (f *FocusStats) Summary() string {
	if !f.Active() {
		return ""
	}
	var parts []string
	if f.ThreadPatterns != nil {
		threads := "threads"
		if f.ThreadsTotal == 1 {
			threads = "thread"
		}
		main := ""
		if f.MainByPID != "" {
			main = fmt.Sprintf("; %s is the main thread: its tid is the pid", strconv.Quote(f.MainByPID))
		}
		parts = append(parts, fmt.Sprintf("%s of %s %s (%s%s)",
			units.Count(int64(f.ThreadsKept)), units.Count(int64(f.ThreadsTotal)), threads, threadFlags(f.ThreadPatterns), main))
	}
	var stages []string
	if f.Window {
		stages = append(stages, fmt.Sprintf("window %s to %s", units.Duration(f.From), units.Duration(f.To)))
	}
	if f.Root != "" {
		stages = append(stages, "root "+f.Root)
	}
	if len(stages) > 0 && f.Sampled {
		samples := "samples"
		if f.SamplesTotal == 1 {
			samples = "sample"
		}
		parts = append(parts, fmt.Sprintf("%s: %s of %s %s", strings.Join(stages, ", "),
			units.Count(f.SamplesKept), units.Count(f.SamplesTotal), samples))
	} else if len(stages) > 0 {
		// The counts are taken before the window and after the root: what
		// the two stages kept together.
		parts = append(parts, fmt.Sprintf("%s: %s of %s frames, %s of %s wall time", strings.Join(stages, ", "),
			units.Count(f.FramesKept), units.Count(f.FramesTotal),
			units.Duration(f.WallKept), units.Duration(f.WallTotal)))
	}
	return "focus: " + strings.Join(parts, "; ")
}

// threadFlags spells the patterns as the flags that gave them, quoting a
// pattern that a shell would split.
func threadFlags(patterns []string) string {
	var b strings.Builder
	for i, p := range patterns {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("--thread ")
		if p == "" || strings.ContainsAny(p, " \t'\"") {
			p = strconv.Quote(p)
		}
		b.WriteString(p)
	}
	return b.String()
}
