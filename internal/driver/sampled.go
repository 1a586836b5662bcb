package driver

import (
	"fmt"
	"strings"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Sampled profiles (hprof text, Android 5.x ART profile files; Perfetto
// traces of CPU stack samples and simpleperf profiles) are read by their
// readers (packages samples, pftrace, simpleperf) into a samples.Profile,
// which this file focuses and maps, the one site that does so for every
// sampled format, before samples.Profile.Tree makes the call tree of it.
//
// The formats of timed samples (samples.Format.Timed) take the process
// (--process), the threads (--thread) and the window (--from/--to) in
// their reader, through samples.Select, and keep each sample's time when a
// timeline output asks for it (Input.Run): the samples are then played as
// a timeline of stack changes (samples.Profile.Play) to the exporters a
// method trace drives.

// readSampled reads a sampled profile into its call tree: it applies
// --process, --thread, --from/--to, --strict, --mapping and --root to the
// profile, in that order, and refuses what the format cannot take (a
// window, --process or --clock where the format has no times, processes
// or clocks). With timeline, the profile keeps its timeline
// (samples.Profile.Timeline), for Play.
func (in *Input) readSampled(timeline bool) (*stacks.Tree, *samples.Profile, error) {
	o := &in.d.opt
	timed := in.src.Format.Timed()
	if !timed {
		// --clock names a clock the input must record (Options.Clock), as
		// a method trace's reader checks: these profiles record none.
		if o.Clock != 0 {
			return nil, nil, Usagef("%s: --clock %s: a sampled profile has no clocks to choose from (--clock applies to method traces)", in.Name(), o.Flags.Clock)
		}
		if o.Window != nil {
			return nil, nil, Usagef("%s: --from/--to: %s has no timestamps (a window applies to method traces, and to Perfetto and simpleperf stack samples)", in.Name(), input.DescribeSampledFormat(in.src.Format))
		}
		if o.Flags.Process != "" {
			return nil, nil, Usagef("%s: --process: %s holds one process (--process chooses among the processes of a Perfetto trace or a simpleperf profile)", in.Name(), input.DescribeSampledFormat(in.src.Format))
		}
	}
	sel := samples.Select{Process: o.Flags.Process, Timeline: timeline}
	var picked *threadPick
	if timed && o.Threads != nil {
		picked = &threadPick{filter: o.Threads}
		sel.Threads = picked.keep
	}
	if timed && o.Window != nil {
		sel.Windowed, sel.From, sel.To = true, o.Window.From, o.Window.To
		if o.Window.To == focus.NoEnd {
			sel.To = samples.NoEnd
		}
	}
	p, size, err := in.src.ReadSampled(sel)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", in.Name(), err)
	}
	var fs stream.FocusStats
	switch {
	case o.Threads == nil:
	case timed:
		if picked.kept == 0 {
			return nil, nil, in.noThreadMatches(picked.total, "samples", picked.seen)
		}
		fs = stream.FocusStats{ThreadPatterns: o.Flags.Threads, ThreadsKept: picked.kept, ThreadsTotal: picked.total, MainByPID: picked.mainByPID}
	default:
		kept, total, err := in.focusThreads(p)
		if err != nil {
			return nil, nil, err
		}
		fs = stream.FocusStats{ThreadPatterns: o.Flags.Threads, ThreadsKept: kept, ThreadsTotal: total}
	}
	if err := in.strictSampled(p); err != nil {
		return nil, nil, err
	}
	if timed {
		if err := in.windowed(p, &fs); err != nil {
			return nil, nil, err
		}
		in.sayTimed(p)
	}
	if err := in.limitDepth(p); err != nil {
		return nil, nil, err
	}
	for _, n := range p.Notes {
		in.say(Note, "note: %s", n)
	}
	if timed {
		mergeJavaCopies(p)
	}
	m, counts, err := in.deobfuscate(p)
	if err != nil {
		return nil, nil, err
	}
	if timed {
		in.rootTimed(p, &fs)
	} else {
		in.root(p)
	}
	tree, err := p.Tree(in.src.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", in.Name(), err)
	}
	t := tree.Trace()
	t.Size = size // for the stack budget (CheckStacks)
	t.Deobf = convert.Deobf(m, counts)
	t.Focus = fs
	if s := fs.Summary(); s != "" {
		in.say(Focus, "%s", s)
	}
	if timed {
		if err := in.sampledValue(tree); err != nil {
			return nil, nil, err
		}
	}
	return tree, p, nil
}

// strictSampled applies --strict to what a sampled profile's reader
// worked around: a file cut short, and the samples kept by naming frames
// the file never defines.
func (in *Input) strictSampled(p *samples.Profile) error {
	if !in.d.opt.Flags.Strict {
		return nil
	}
	if p.Truncated && !p.Format.Timed() {
		return fmt.Errorf("%s: strict mode: the file was cut short inside a CPU section", in.Name())
	}
	if p.Truncated {
		return fmt.Errorf("%s: strict mode: the file is cut short: its last record is incomplete", in.Name())
	}
	if r := repairsSummary(p.Repairs); r != "" {
		return fmt.Errorf("%s: strict mode: the file needed repairs: %s", in.Name(), r)
	}
	return nil
}

// limitDepth applies the depth limit (--max-depth) to the profile's
// stacks (limitDepth), says what it folded as a method trace's repairs
// say it (stream.Stats.DeepFrames), and refuses it with --strict.
func (in *Input) limitDepth(p *samples.Profile) error {
	folded, cut := limitDepth(p, in.d.opt.Flags.MaxDepth)
	if cut == 0 {
		return nil
	}
	s := stream.Stats{DeepFrames: folded}
	r := s.Summary()
	if r == "" { // only stacks of no samples were cut
		return nil
	}
	if in.d.opt.Flags.Strict {
		return fmt.Errorf("%s: strict mode: the file needed repairs: %s", in.Name(), r)
	}
	in.say(Repaired, "repaired: %s", r)
	return nil
}

// repairsSummary is one line on the samples a reader kept by naming what
// the file never defines ("[unknown call stack]", "[unknown frame]"), ""
// for none.
func repairsSummary(rs []samples.Repair) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, units.Count(r.Count)+" "+r.What)
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " (named [unknown …])"
}

// sayTimed says what a profile of timed samples chose and repaired: the
// process when the file has several and --process named none, and the
// samples kept with frames the file never defines.
func (in *Input) sayTimed(p *samples.Profile) {
	if n := len(p.Processes); n > 1 && in.d.opt.Flags.Process == "" {
		pr := &p.Processes[p.Process]
		var all int64
		for _, q := range p.Processes {
			all += q.Samples
		}
		in.say(Note, "note: process %s (pid %d): %s of the file's %s stack samples, the most of its %d processes (--process NAME|PID for another; info lists them)",
			pr.ProcessName(), pr.PID, units.Count(pr.Samples), units.Count(all), n)
	}
	if r := repairsSummary(p.Repairs); r != "" {
		in.say(Repaired, "repaired: %s", r)
	}
}

// windowed checks the window (--from/--to) of a profile of timed samples
// against its length, and fills in what it kept: the reader took only the
// samples in it.
func (in *Input) windowed(p *samples.Profile, fs *stream.FocusStats) error {
	w := in.d.opt.Window
	if w == nil {
		return nil
	}
	end := p.EndNanos - p.StartNanos
	if w.From > end {
		return in.windowAfterEnd(end)
	}
	in.warnWindowEnd(end)
	fs.Window, fs.From, fs.To = true, w.From, min(w.To, end)
	fs.Sampled, fs.SamplesKept, fs.SamplesTotal = true, p.SampleCount(), p.ThreadSamples
	return nil
}

// rootTimed applies --root to a profile of timed samples (rootProfile),
// and fills in what the window and the root kept together.
func (in *Input) rootTimed(p *samples.Profile, fs *stream.FocusStats) {
	re := in.d.opt.Root
	if re == nil {
		return
	}
	if !fs.Window {
		fs.SamplesTotal = p.SampleCount()
	}
	k := rootProfile(p, re)
	fs.Root, fs.Sampled, fs.SamplesKept = in.d.opt.Flags.Root, true, k.Count
	if k.Count == 0 {
		in.say(Focus, "no stack matches --root %q: the outputs are empty", in.d.opt.Flags.Root)
	}
}

// sampledValue refuses a value (--clock) that a tree of timed samples
// cannot show: its samples, and with a period the CPU time they stand for.
func (in *Input) sampledValue(tree *stacks.Tree) error {
	o := &in.d.opt
	if _, _, err := tree.Clocks(o.Value); err == nil {
		return nil
	}
	if tree.Values().Period > 0 {
		return Usagef("%s: --clock %s: the profile counts CPU samples: it shows them, and the CPU time they stand for alone with --clock cpu", in.Name(), o.Flags.Clock)
	}
	return Usagef("%s: --clock %s: the profile counts samples and states no sampling period: it has no clocks to choose from", in.Name(), o.Flags.Clock)
}

// mergeJavaCopies makes the copies of a Java method one frame: ART runs a
// method compiled ahead of time (.oat, .odex), compiled just in time or
// interpreted (.vdex, .dex), and a profile of native stacks has a frame of
// each copy, in its own mapping. The library of a Java frame is left out,
// and frames that become equal merge, so that top, diff and every view
// count the method once.
func mergeJavaCopies(p *samples.Profile) {
	changed := false
	for i := range p.Frames {
		f := &p.Frames[i]
		if f.Kind == samples.JavaFrame && (f.Library != "" || f.BuildID != "" || f.Symbol != "") {
			f.Library, f.BuildID, f.Symbol = "", "", ""
			changed = true
		}
	}
	if changed {
		mergeFrames(p)
	}
}

// threadPick is --thread as the reader of timed samples applies it
// (samples.Select.Threads): it keeps the threads the filter accepts, and
// counts and names the threads it was asked about, for the summary and the
// error when it keeps none.
type threadPick struct {
	filter      *focus.ThreadFilter
	kept, total int
	seen        []threadLabel
	mainByPID   string // the thread --thread main kept for its tid being the pid
}

func (tp *threadPick) keep(th *samples.Thread) bool {
	tp.total++
	tp.seen = append(tp.seen, threadLabel{th.ThreadName(), th.TID})
	keep, byPID := tp.filter.KeepInProcess(th.TID, th.PID, th.ThreadName())
	if byPID {
		tp.mainByPID = th.ThreadName()
	}
	if keep {
		tp.kept++
	}
	return keep
}

// focusThreads applies --thread to a sampled profile: an ART profile has
// no threads (a usage error); hprof text keeps the samples of the matching
// threads and drops those without a thread.
func (in *Input) focusThreads(p *samples.Profile) (kept, total int, err error) {
	if p.Format == samples.ARTProfileMethod || p.Format == samples.ARTProfileBoundedStack {
		return 0, 0, Usagef("%s: --thread: an %s has no threads to choose from (--thread applies to method traces and hprof text)", in.Name(), p.Format)
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
	filter := in.d.opt.Threads
	kept, total = keepThreads(p, func(th *samples.Thread) bool { return filter.Keep(th.ID, th.ThreadName()) })
	if kept == 0 {
		return 0, 0, in.noThreadMatches(total, "samples", withSamples)
	}
	return kept, total, nil
}

// deobfuscate names the frames of a sampled profile with --mapping, the
// methods of its frames standing for a trace's method table, says how the
// map resolved them, and returns the map and the counts; without
// --mapping it gives the hint, and returns no map. It applies --strict to
// methods resolved by name only or ambiguously.
func (in *Input) deobfuscate(p *samples.Profile) (*mapping.Map, mapping.Counts, error) {
	if in.d.opt.Flags.Mapping == "" {
		in.hint(len(p.Frames), func(i int) mapping.Method { return mappingMethod(&p.Frames[i]) })
		return nil, mapping.Counts{}, nil
	}
	methods := mappingMethods(p)
	m, err := in.loadMapping(methods)
	if err != nil {
		return nil, mapping.Counts{}, err
	}
	if err := in.checkMapID(m, methods); err != nil {
		return nil, mapping.Counts{}, err
	}
	c := rename(p, m)
	if in.d.opt.Flags.Strict && c[mapping.NameOnly]+c[mapping.Ambiguous] > 0 {
		return nil, c, fmt.Errorf("%s: strict mode: the mapping resolved %d methods by name only (no descriptor matched) and %d ambiguously",
			in.Name(), c[mapping.NameOnly], c[mapping.Ambiguous])
	}
	in.say(Deobf, "%s", convert.Deobf(m, c).Summary())
	in.mappedNone(convert.Deobf(m, c))
	return m, c, nil
}

// root keeps the part of p's stacks --root asks for and says how many
// samples that kept.
func (in *Input) root(p *samples.Profile) {
	re := in.d.opt.Root
	if re == nil {
		return
	}
	k := rootProfile(p, re)
	pattern := in.d.opt.Flags.Root
	if len(p.Samples) == 0 {
		in.say(Focus, "no stack matches --root %q: the outputs are empty", pattern)
	}
	what, kept, total := "samples", k.Count, k.TotalCount
	if p.Format == samples.JVMHprofTimes {
		what = "calls"
	}
	in.say(Focus, "focus: root %s: %s of %s %s", pattern, units.Count(kept), units.Count(total), what)
}
