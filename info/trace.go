package info

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// Trace is the report on a method trace, in the form of its JSON; the
// text form prints the same fields.
type Trace struct {
	File            string `json:"file"`
	Variant         string `json:"variant"`
	Version         int    `json:"version"`
	DataVersion     string `json:"data_version"`
	Compressed      bool   `json:"gzip"`
	Clock           string `json:"clock"`
	ClockFrom       string `json:"clock_from"`
	VM              string `json:"vm,omitempty"`
	PID             int    `json:"pid,omitempty"`
	StartTimeMicros uint64 `json:"start_time_us"`
	StartIsEpoch    bool   `json:"start_is_epoch"`
	StartDate       string `json:"start_date,omitempty"`
	WallNanos       int64  `json:"wall_duration_ns"` // measured from the records
	// KeyElapsedNanos is the trace's own elapsed time, from the key's
	// summary (elapsed-time-usec, or elapsed-time-nsec): 0 when absent.
	// It can differ from WallNanos, which ends at the last record.
	KeyElapsedNanos  int64  `json:"key_elapsed_ns,omitempty"`
	KeyElapsedFrom   string `json:"key_elapsed_from,omitempty"` // the option it came from
	CPUNanos         int64  `json:"thread_cpu_total_ns"`
	Bytes            int64  `json:"bytes"`
	Records          int64  `json:"records"`
	RecordSize       int    `json:"record_size"`
	ThreadsListed    int    `json:"threads_listed"`
	MethodsListed    int    `json:"methods_listed"`
	MethodsUsed      int    `json:"methods_used"`
	DataFileOverflow bool   `json:"data_file_overflow"`
	Sampling         bool   `json:"looks_sampled"`
	IntervalNanos    int64  `json:"sampling_interval_ns,omitempty"`
	// IntervalThread is the thread whose steps give IntervalNanos: the
	// busiest (stream.Sampling.Thread).
	IntervalTID    uint32        `json:"sampling_interval_tid,omitempty"`
	IntervalThread string        `json:"sampling_interval_thread,omitempty"`
	Repairs        stream.Stats  `json:"repairs"`
	Deobfuscation  *Deobf        `json:"deobfuscation,omitempty"` // with --mapping only
	Focus          *Focus        `json:"focus,omitempty"`         // with --thread, --from/--to or --root only
	Warnings       []string      `json:"warnings"`
	Threads        []TraceThread `json:"threads"`
}

// Deobf is how a mapping (--mapping) named the methods used: one count per
// distinct method (docs/formats.md §19).
type Deobf struct {
	Mapping   string `json:"mapping"`          // the map's file
	MapID     string `json:"map_id,omitempty"` // its pg_map_id
	Mapped    int    `json:"mapped"`           // one original method, descriptor matched
	NameOnly  int    `json:"name_only"`        // resolved by name alone: no descriptor matched
	Ambiguous int    `json:"ambiguous"`        // several originals: named "A.foo | B.bar"
	ClassOnly int    `json:"class_only"`       // the class is mapped, the method not listed
	Untouched int    `json:"untouched"`        // the class is not in the map
	summary   string
}

// newDeobf is the report of the map that named t's frames, nil when none
// did.
func newDeobf(t *stream.Trace) *Deobf {
	d := t.Deobf
	if d == nil {
		return nil
	}
	return &Deobf{
		Mapping: d.Map, MapID: d.MapID,
		Mapped: d.Mapped, NameOnly: d.NameOnly, Ambiguous: d.Ambiguous,
		ClassOnly: d.ClassOnly, Untouched: d.Untouched,
		summary: strings.TrimPrefix(d.Summary(), "deobfuscated with "),
	}
}

// Focus is what --thread, --from/--to and --root kept.
type Focus struct {
	stream.FocusStats
	summary string
}

// newFocus is the report of t's focus, nil without one.
func newFocus(t *stream.Trace) *Focus {
	if !t.Focus.Active() {
		return nil
	}
	return &Focus{FocusStats: t.Focus, summary: strings.TrimPrefix(t.Focus.Summary(), "focus: ")}
}

// TraceThread is a thread with events.
type TraceThread struct {
	TID       uint32 `json:"tid"`
	Name      string `json:"name"`
	Listed    bool   `json:"listed"`
	Events    int64  `json:"events"`
	MaxDepth  int    `json:"max_depth"`
	Orphans   int    `json:"orphan_frames"`
	OpenAtEnd int    `json:"open_at_end"`
	CPUNanos  int64  `json:"thread_cpu_ns"`
}

// NewTrace describes the method trace t, read from the input called name,
// once it has been converted (or analysed): the file's layout as its
// header h says, the process and the events as t has them.
func NewTrace(name string, h *parser.Header, t *stream.Trace) *Trace {
	pr := &t.Process
	r := &Trace{
		File: name, Variant: h.Format(), Version: h.RecordVersion,
		DataVersion: fmt.Sprintf("%#02x", h.DataVersion), Compressed: h.Compressed,
		Clock: h.Clock.String(), ClockFrom: h.ClockFrom, VM: h.VM(), PID: pr.PID,
		StartTimeMicros: pr.StartMicros, StartIsEpoch: pr.Epoch,
		WallNanos: t.WallEnd, Bytes: t.Size, Records: h.Records, RecordSize: h.RecordSize,
		ThreadsListed: len(h.Threads), MethodsListed: len(h.Methods), MethodsUsed: len(t.Frames),
		DataFileOverflow: h.DataFileOverflow(), Sampling: t.Sampling.Likely, IntervalNanos: t.Sampling.Interval,
		Repairs: t.Stats, Deobfuscation: newDeobf(t), Focus: newFocus(t), Warnings: append([]string{}, t.Warnings...),
	}
	r.KeyElapsedNanos, r.KeyElapsedFrom = h.Elapsed()
	if i := int(t.Sampling.Thread); t.Sampling.Likely && i >= 0 && i < len(t.Threads) {
		r.IntervalTID, r.IntervalThread = uint32(t.Threads[i].ID), t.Threads[i].Name
	}
	if r.StartIsEpoch {
		r.StartDate = time.UnixMicro(int64(pr.StartMicros)).UTC().Format("2006-01-02 15:04:05.000000 UTC")
	}
	for _, th := range t.Threads {
		r.CPUNanos += th.LastCPU
		r.Threads = append(r.Threads, TraceThread{
			TID: uint32(th.ID), Name: th.Name, Listed: th.Listed, Events: th.Events, MaxDepth: th.MaxDepth,
			Orphans: th.Orphans, OpenAtEnd: th.OpenAtEnd, CPUNanos: th.LastCPU,
		})
	}
	if !t.HasCPU {
		r.CPUNanos = 0
	}
	return r
}

// WriteText writes the report as aligned text.
func (r *Trace) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	row("file", "%s", r.File)
	variant := fmt.Sprintf("%s, version %d (data version %s)", r.Variant, r.Version, r.DataVersion)
	if r.Compressed {
		variant += ", gzip"
	}
	row("variant", "%s", variant)
	row("clock", "%s (from the %s)", r.Clock, r.ClockFrom)
	vm := r.VM
	if vm == "" {
		vm = "not stated"
	}
	if r.PID != 0 {
		vm += fmt.Sprintf(", pid %d", r.PID)
	}
	row("vm", "%s", vm)
	if r.StartIsEpoch {
		row("start", "%s", r.StartDate)
	} else {
		row("start", "%d µs on the device's monotonic clock (not a calendar date)", r.StartTimeMicros)
	}
	switch {
	case r.Clock != "thread-cpu" && r.KeyElapsedFrom != "":
		row("wall time", "%s measured from the records; %s in the key: %s", units.Duration(r.WallNanos),
			r.KeyElapsedFrom, units.Duration(r.KeyElapsedNanos))
	case r.Clock != "thread-cpu":
		row("wall time", "%s", units.Duration(r.WallNanos))
	case r.KeyElapsedFrom != "":
		row("wall time", "not recorded; %s in the key: %s", r.KeyElapsedFrom, units.Duration(r.KeyElapsedNanos))
	}
	if r.Clock != "wall" {
		row("thread CPU", "%s over all threads", units.Duration(r.CPUNanos))
	}
	if r.RecordSize > 0 {
		row("records", "%s of %d bytes (%s bytes of input)", units.Count(r.Records), r.RecordSize, units.Count(r.Bytes))
	} else { // ART V2: LEB128 records of varying size
		row("records", "%s of varying size (%s bytes of input)", units.Count(r.Records), units.Count(r.Bytes))
	}
	row("threads", "%d with events, %d listed", len(r.Threads), r.ThreadsListed)
	row("methods", "%d used, %d listed", r.MethodsUsed, r.MethodsListed)
	row("overflow", "%s", yesNo(r.DataFileOverflow, "yes: data-file-overflow=true, every thread stopped recording when the buffer filled"))
	samp := "no (instrumented: every call recorded)"
	if r.Sampling {
		samp = fmt.Sprintf("likely, about %s between samples", units.Duration(r.IntervalNanos))
		if r.IntervalTID != 0 || r.IntervalThread != "" {
			samp += fmt.Sprintf(" (the steps of the busiest thread, %d %q)", r.IntervalTID, r.IntervalThread)
		}
	}
	row("sampling", "%s", samp)
	repairs := r.Repairs.Summary()
	if repairs == "" {
		repairs = "none"
	}
	row("repairs", "%s", repairs)
	if d := r.Deobfuscation; d != nil {
		row("mapping", "%s", d.summary)
	}
	if f := r.Focus; f != nil {
		row("focus", "%s", f.summary)
	}
	for _, wmsg := range r.Warnings {
		row("warning", "%s", wmsg)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TID\tEVENTS\tDEPTH\tORPHANS\tOPEN\tTHREAD CPU\t\tTHREAD")
	for _, t := range r.Threads {
		name := t.Name
		if !t.Listed {
			name += " (not in the thread table)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%s\t\t%s\n", t.TID, units.Count(t.Events), t.MaxDepth, t.Orphans, t.OpenAtEnd, units.Duration(t.CPUNanos), strings.ReplaceAll(name, "\t", " "))
	}
	tw.Flush()
}

func yesNo(b bool, yes string) string {
	if b {
		return yes
	}
	return "no"
}
