package driver

import (
	"fmt"
	"regexp"
	"time"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// Flags are the command line's global flags as given.
type Flags struct {
	Strict          bool
	Quiet           bool     // no diagnostics are wanted (the hint's work is skipped)
	Clock           string   // auto, wall, cpu, thread-cpu, dual or offcpu
	TimeUnit        string   // auto, us or ns
	MaxDepth        int      // 1 to convert.CorruptDepth
	Mapping         string   // the mapping.txt file or folder, "" for none
	MappingMismatch string   // error or warn
	Threads         []string // --thread patterns
	From, To        string   // --from, --to: Go durations
	Root            string   // --root pattern
	Process         string   // --process: a name or pid, "" for the process with the most samples
}

// Options are the flags checked and compiled: what every read of the run
// applies. Build them once with NewOptions; a caller may then drop a
// focus (Threads, Window, Root) for a read of the whole trace.
type Options struct {
	Flags Flags // as given: what the compiled fields leave out, and messages
	// Value is what the views show of the input's values (--clock), as
	// pprof's -sample_index picks a sample type: one clock, the off-CPU
	// time, or every clock the input has (stream.ValueAuto). An input is
	// read with every value it has; each view picks Value, and a view
	// that cannot show it refuses it (a *stream.ValueError).
	Value stream.Value
	// Clock is the clock --clock names, which a method trace must record
	// (parser.Options.Clock: checked, never narrowing the read; ClockDual
	// for the off-CPU time, derived from both): 0 without --clock. It is
	// also the clock of a trace whose summary is missing.
	Clock parser.Clock
	// TimeUnit is an ART V2 trace's unit, 0 to take it from the trace.
	TimeUnit time.Duration
	Threads  *focus.ThreadFilter // nil without --thread
	Window   *focus.Window       // nil without --from/--to
	Root     *regexp.Regexp      // nil without --root
}

// NewOptions checks the flags and compiles them; a flag that is wrong
// whatever the input is a *UsageError.
func NewOptions(f Flags) (Options, error) {
	o := Options{Flags: f}
	if f.MaxDepth < 1 || f.MaxDepth > convert.CorruptDepth {
		return o, Usagef("--max-depth %d: give a depth from 1 to %d", f.MaxDepth, convert.CorruptDepth)
	}
	switch f.TimeUnit {
	case "us":
		o.TimeUnit = time.Microsecond
	case "ns":
		o.TimeUnit = time.Nanosecond
	}
	var ok bool
	if o.Value, ok = stream.ParseValue(f.Clock); !ok {
		return o, Usagef("--clock %q: give auto, wall, cpu, thread-cpu, dual or offcpu", f.Clock)
	}
	if o.Value == stream.ValueOffCPU {
		o.Clock = parser.ClockDual // off-CPU time is derived from both
	} else if f.Clock != "auto" && f.Clock != "" {
		o.Clock, _ = parser.ParseClock(f.Clock)
	}
	if len(f.Threads) > 0 {
		t, err := focus.NewThreadFilter(f.Threads)
		if err != nil {
			return o, Usagef("%v", err)
		}
		o.Threads = t
	}
	if f.Root != "" {
		re, err := regexp.Compile(f.Root)
		if err != nil {
			return o, Usagef("--root %q: %v", f.Root, err)
		}
		o.Root = re
	}
	var err error
	o.Window, err = window(f.From, f.To)
	return o, err
}

// window is the window --from and --to ask for, nil without either: a
// closed window of wall times since the trace start.
func window(from, to string) (*focus.Window, error) {
	if from == "" && to == "" {
		return nil, nil
	}
	w := &focus.Window{To: focus.NoEnd}
	for _, d := range []struct {
		flag, val string
		ns        *int64
	}{{"--from", from, &w.From}, {"--to", to, &w.To}} {
		if d.val == "" {
			continue
		}
		v, err := time.ParseDuration(d.val)
		if err != nil || v < 0 {
			return nil, Usagef("%s %q: give a duration since the trace start, such as 1.5s, 250ms or 1200us", d.flag, d.val)
		}
		*d.ns = int64(v)
	}
	if w.From > w.To {
		return nil, Usagef("--from %s is after --to %s", from, to)
	}
	return w, nil
}

// Whole returns the options without a focus: the reads of a whole trace
// (startup phases), whose diagnostics were given by an earlier read.
func (o Options) Whole() Options {
	o.Threads, o.Window, o.Root = nil, nil, nil
	o.Flags.Threads, o.Flags.From, o.Flags.To, o.Flags.Root = nil, "", "", ""
	o.Flags.Quiet = true
	return o
}

// UsageError is a command line that cannot apply: a wrong flag, or one
// the input cannot take (--clock cpu on a wall-clock trace). The CLI
// exits 80 for it.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// Usagef makes a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}
