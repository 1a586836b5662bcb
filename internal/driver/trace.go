package driver

import (
	"errors"
	"fmt"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// openTrace opens a method trace with the run's clock and time unit.
func (in *Input) openTrace() (*input.Trace, error) {
	o := &in.d.opt
	// Every command reads the file through convert, which takes a
	// streaming file's definitions as they come: one read, not two.
	// With --mapping the whole method table is needed before the map is
	// read (loadMapping), and with --thread the whole thread table before
	// the first record: then a streaming file is scanned first.
	opt := parser.Options{KeyFile: in.src.Sec, SkipStreamingScan: o.Flags.Mapping == "" && o.Threads == nil,
		Clock: o.Clock, TimeUnit: o.TimeUnit}
	// Standard input, pipes and gzip are copied to a temporary file on a
	// goroutine of their own; a regular trace opens once its header is in,
	// and its reads follow the copy (internal/input).
	bar := in.d.bar(in.Name() + " (reading)")
	f, err := in.src.OpenTrace(opt, bar.Func())
	bar.Clear()
	if err != nil {
		var ce *parser.ClockError
		if errors.As(err, &ce) && o.Value == stream.ValueOffCPU {
			return nil, Usagef("%s: --clock offcpu: the trace records the %s clock; off-CPU time needs both the wall and the thread-CPU clock", in.Name(), ce.Have)
		}
		if errors.As(err, &ce) {
			return nil, Usagef("%s: --clock %s: %v", in.Name(), o.Flags.Clock, err)
		}
		return nil, fmt.Errorf("%s: %w", in.Name(), err)
	}
	return f, nil
}

// convert runs the converter over a method trace into outs (one read or
// two, see convert.Run) with the focus and the mapping, and says what it
// repaired; with no outputs it only analyses the trace. It returns the
// trace and the file's header.
func (in *Input) convert(outs []convert.Output) (*stream.Trace, *parser.Header, error) {
	o := &in.d.opt
	if o.Flags.Process != "" {
		return nil, nil, Usagef("%s: --process: a method trace records one process (--process chooses among the processes of a Perfetto trace or a simpleperf profile)", in.Name())
	}
	f, err := in.openTrace()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	opt := convert.Options{Strict: o.Flags.Strict, MaxDepth: o.Flags.MaxDepth, Threads: o.Threads, Root: o.Root,
		Window: o.Window}
	if o.Flags.Mapping != "" {
		methods := convert.MappingMethods(f.Header)
		if opt.Mapping, err = in.loadMapping(methods); err != nil {
			return nil, nil, err
		}
		if err := in.checkMapID(opt.Mapping, methods); err != nil {
			return nil, nil, err
		}
	}
	bar := in.d.bar(in.Name())
	opt.Progress = bar.Func()
	in.d.writing(bar)
	var t *stream.Trace
	if len(outs) == 0 {
		t, err = convert.Analyze(f.File, opt)
	} else {
		t, err = convert.Run(f.File, opt, outs...)
	}
	bar.Clear()
	if err == nil && len(outs) > 0 {
		// The outputs written after the conversion get a line of their own.
		defer in.d.writing(in.d.bar(in.Name()).Finishing())
	}
	if err != nil {
		return nil, nil, in.convertError(err)
	}
	h := f.Header
	if opt.Threads != nil && t.Focus.ThreadsKept == 0 {
		with, without := recordedThreads(t.Focus.Dropped, h.Threads)
		return nil, nil, in.noThreadMatches(t.Focus.ThreadsTotal, "records", with, without...)
	}
	in.summarize(t)
	if len(outs) > 0 {
		in.noRootMatch(t.Frames)
	}
	if opt.Mapping == nil {
		in.hint(len(h.Methods), func(i int) mapping.Method { return convert.MappingMethod(&h.Methods[i]) })
	}
	return t, h, nil
}

// convertError names the input in a conversion's error, or says what the
// flags asked that the trace cannot give.
func (in *Input) convertError(err error) error {
	o := &in.d.opt
	var late *convert.WindowAfterEndError
	var ce *parser.ClockError
	var ve *stream.ValueError
	var werr *outfile.WriteError
	switch {
	case errors.Is(err, convert.ErrNoWallClock):
		return fmt.Errorf("%s: --from/--to: the trace has thread-CPU times only, and a window is on the wall clock", in.Name())
	case errors.As(err, &late):
		return in.windowAfterEnd(late.End)
	case errors.As(err, &ce), errors.As(err, &ve):
		return Usagef("%s: --clock %s: %v", in.Name(), o.Flags.Clock, err)
	case errors.As(err, &werr):
		return err // the output's fault, not the trace's: no trace name before it
	}
	return fmt.Errorf("%s: %w", in.Name(), err)
}

// windowAfterEnd refuses a window (--from) that starts after the input's
// end, end ns after its start, whatever the input family.
func (in *Input) windowAfterEnd(end int64) error {
	return fmt.Errorf("%s: --from %s is past the trace, which spans 0 to %s: nothing to keep", in.Name(), in.d.opt.Flags.From, units.Duration(end))
}

// warnWindowEnd says when the window (--to) ends after the input's end,
// end ns after its start: it keeps less than it says.
func (in *Input) warnWindowEnd(end int64) {
	if w := in.d.opt.Window; w != nil && w.To != focus.NoEnd && w.To > end {
		in.say(Warning, "warning: --to %s is past the trace, which spans 0 to %s: the window keeps %s to %s",
			in.d.opt.Flags.To, units.Duration(end), units.Duration(w.From), units.Duration(end))
	}
}

// summarize says the reader's warnings and the repairs, how the mapping
// named the methods and what the focus kept, one line each.
func (in *Input) summarize(t *stream.Trace) {
	for _, w := range t.Warnings {
		in.say(Warning, "warning: %s", w)
	}
	in.warnWindowEnd(t.WallEnd) // one starting past it is refused: convertError
	if s := t.Stats.Summary(); s != "" {
		in.say(Repaired, "repaired: %s", s)
	}
	if s := t.Deobf.Summary(); s != "" {
		in.say(Deobf, "%s", s)
		in.mappedNone(t.Deobf)
	}
	if s := t.Focus.Summary(); s != "" {
		in.say(Focus, "%s", s)
	}
}

// noRootMatch says that no method of the trace matches --root, which
// leaves every output empty.
func (in *Input) noRootMatch(frames []stream.Frame) {
	re := in.d.opt.Root
	if re == nil {
		return
	}
	for i := range frames {
		if re.MatchString(frames[i].Name) {
			return
		}
	}
	in.say(Focus, "no method matches --root %q: the outputs are empty", in.d.opt.Flags.Root)
}
