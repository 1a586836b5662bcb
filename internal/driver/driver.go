package driver

import (
	"fmt"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/progress"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Driver loads the inputs of one run with the run's options.
type Driver struct {
	opt    Options
	opener *input.Opener
	ui     UI
	said   map[string]bool // diagnostics given once per run, and the hint
}

// UI is how a run shows its reads: on a progress line, and by what each
// read had to say. A nil UI shows nothing.
type UI interface {
	// Bar returns the line of one read, named name, or nil for none.
	Bar(name string) *progress.Bar
	// Writing says on which line (nil: none) the outputs' writes show
	// from now on: the conversion's, then one for outputs written after it.
	Writing(b *progress.Bar)
	// Diagnose is given what a read of an input had to say, once the read
	// is over (whatever its outcome, and before its error is returned):
	// the diagnostics said since the last call (Input.Diagnostics holds
	// them all), in order; none with Flags.Quiet.
	Diagnose(ds []Diagnostic)
}

// New returns a driver that opens inputs with opener (the run's: each
// input opened once) and reads them with opt; ui may be nil.
func New(opt Options, opener *input.Opener, ui UI) *Driver {
	return &Driver{opt: opt, opener: opener, ui: ui, said: map[string]bool{}}
}

// Options returns the options the driver reads with.
func (d *Driver) Options() Options { return d.opt }

// With returns a driver of the same run that reads with other options
// (diff's sides with their own mappings, the startup phases of whole
// traces): it opens inputs with the same opener, and says once per run
// what d says once per run.
func (d *Driver) With(opt Options) *Driver {
	c := *d
	c.opt = opt
	return &c
}

// Input is an identified input: nothing but its first bytes has been read.
// Read it once, with Tree, Run, or one of the reads of views.go (Info,
// Profile, Startup).
type Input struct {
	d     *Driver
	src   *input.Source
	diags []Diagnostic
	shown int // how many of diags the UI was given
}

// Load identifies an input from its first bytes, without consuming them.
// An input that cannot be opened is taken for a method trace, whose read
// says why it cannot be read.
func (d *Driver) Load(a input.Arg) (*Input, error) {
	src, err := d.opener.Identify(a)
	if err != nil {
		return nil, err
	}
	return &Input{d: d, src: src}, nil
}

// LoadAll loads inputs whose trees are to be merged (pprof), refusing a mix
// of sampled profiles and method traces: samples count stacks, method
// traces time calls, and no sample type measures both.
func (d *Driver) LoadAll(args []input.Arg) ([]*Input, error) {
	var traced, sampled *Input
	ins := make([]*Input, len(args))
	for i := range args {
		in, err := d.Load(args[i])
		if err != nil {
			return nil, err
		}
		ins[i] = in
		if in.src.Sampled && sampled == nil {
			sampled = in
		}
		if !in.src.Sampled && traced == nil {
			traced = in
		}
	}
	if traced != nil && sampled != nil {
		return nil, Usagef("%s is a sampled profile and %s a method trace: one pprof profile cannot hold counted samples and timed calls; convert them separately",
			sampled.Name(), traced.Name())
	}
	return ins, nil
}

// Name is how messages refer to the input: "<stdin>" for standard input.
func (in *Input) Name() string { return in.src.Name() }

// Arg is the input's argument: its path and key file.
func (in *Input) Arg() input.Arg { return in.src.Arg }

// Path is the input's argument as given ("-" for standard input), the
// name the outputs record.
func (in *Input) Path() string { return in.src.Path }

// Compressed reports whether a sampled profile is gzip-compressed (a
// method trace's header says it of itself).
func (in *Input) Compressed() bool { return in.src.Gzip }

// Timeline reports whether the input has events in time, which Run can
// drive exporters with: nil when it does (a method trace, or a profile of
// timed samples, whose stack changes at the sample times are its events),
// else a *NoTimelineError.
func (in *Input) Timeline() error {
	if !in.src.Sampled || in.src.Format.Timed() {
		return nil
	}
	return &NoTimelineError{Name: in.Name(), What: input.DescribeSampledFormat(in.src.Format)}
}

// Sampled reports whether the input is a sampled profile, whose tree
// counts samples: it has no startup phases, and merges with no method
// trace.
func (in *Input) Sampled() bool { return in.src.Sampled }

// NoTimelineError refuses an input without timestamps (a sampled
// profile) where events in time are needed: a timeline, the startup
// phases, the event dump.
type NoTimelineError struct {
	Name string // the input's name
	What string // what it is: "a JVM hprof text profile"
}

func (e *NoTimelineError) Error() string { return e.Name + ": " + e.What + " has no timestamps" }

// Tree reads the input into its call tree, with the focus and the mapping
// applied.
func (in *Input) Tree() (*stacks.Tree, error) {
	defer in.show()
	if in.src.Sampled {
		tree, _, err := in.readSampled(false)
		return tree, err
	}
	return in.Run(true)
}

// Run reads a method trace once into outs, and with tree into its call
// tree too, which it returns (nil without tree): one read or two, as the
// outputs need (convert.Run). A profile of timed samples is read once, its
// tree made of its counts and its timeline played to outs
// (samples.Profile.Play). An input without a timeline is refused
// (Timeline).
func (in *Input) Run(tree bool, outs ...convert.Output) (*stacks.Tree, error) {
	defer in.show()
	if err := in.Timeline(); err != nil {
		return nil, err
	}
	if in.src.Sampled {
		return in.playSampled(tree, outs)
	}
	var tb *stacks.TreeBuilder
	if tree {
		tb = stacks.New()
		outs = append([]convert.Output{convert.Aggregate(tb).Inlined()}, outs...)
	}
	if _, _, err := in.convert(outs); err != nil {
		return nil, err
	}
	if tb == nil {
		return nil, nil
	}
	return tb.Tree(), nil
}

// Diagnostic is something a read has to say beside its result, as one
// line of text (without the program's name): "app.trace: repaired: 2
// orphan exits".
type Diagnostic struct {
	Kind Kind
	Text string
}

// Kind says what a Diagnostic is about.
type Kind uint8

const (
	Warning  Kind = iota // the reader worked around something in the input
	Repaired             // the repairs the stack policy made
	Note                 // what a sampled profile's reader inferred or skipped
	Deobf                // how --mapping named the methods
	Focus                // what --thread, --from/--to and --root kept
	Hint                 // advice: the names look minified
)

// Diagnostics returns what the reads of the input had to say, in order;
// none with Flags.Quiet.
func (in *Input) Diagnostics() []Diagnostic { return in.diags }

// show gives the UI the diagnostics said since it was last given any: at
// the end of each read (a read that calls another gives them at the end of
// the inner one, and of its own).
func (in *Input) show() {
	if in.d.ui != nil && in.shown < len(in.diags) {
		in.d.ui.Diagnose(in.diags[in.shown:])
	}
	in.shown = len(in.diags)
}

// say adds a diagnostic about the input.
func (in *Input) say(k Kind, format string, args ...any) {
	if in.d.opt.Flags.Quiet {
		return
	}
	in.diags = append(in.diags, Diagnostic{Kind: k, Text: in.Name() + ": " + fmt.Sprintf(format, args...)})
}

// sayOnce adds a diagnostic of the run (text without the input's name)
// the first time the run has it.
func (in *Input) sayOnce(k Kind, text string) {
	if in.d.opt.Flags.Quiet || in.d.said[text] {
		return
	}
	in.d.said[text] = true
	in.diags = append(in.diags, Diagnostic{Kind: k, Text: text})
}

// bar returns the progress line of a read, or nil.
func (d *Driver) bar(name string) *progress.Bar {
	if d.ui == nil || d.opt.Flags.Quiet {
		return nil
	}
	return d.ui.Bar(name)
}

// writing sets the line the outputs' writes show on.
func (d *Driver) writing(b *progress.Bar) {
	if d.ui != nil {
		d.ui.Writing(b)
	}
}

// NeedTimeline is nil for an input with a timeline; for one without, it is
// the error of a command that needs events in time, need saying why ("dump
// prints the events of a method trace"), with the commands that take it.
func (in *Input) NeedTimeline(need string) error {
	if err := in.Timeline(); err != nil {
		return fmt.Errorf("%v; %s — use pprof, speedscope, folded or top", err, need)
	}
	return nil
}

// playSampled reads a profile of timed samples with its timeline into its
// tree, and plays the timeline to outs: each gets the complete trace at
// Begin, so that every declaration of convert.Output is met in one read.
func (in *Input) playSampled(tree bool, outs []convert.Output) (*stacks.Tree, error) {
	t, p, err := in.readSampled(len(outs) > 0)
	if err != nil {
		return nil, err
	}
	if len(outs) > 0 {
		exps := make([]stream.Exporter, len(outs))
		for i, o := range outs {
			exps[i] = o.Exporter
		}
		if err := p.Play(t.Trace(), exps...); err != nil {
			return nil, in.convertError(err)
		}
		// The outputs written after the read get a line of their own, as
		// a method trace's do.
		in.d.writing(in.d.bar(in.Name()).Finishing())
	}
	if !tree {
		return nil, nil
	}
	return t, nil
}
