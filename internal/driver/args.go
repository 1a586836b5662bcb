package driver

import (
	"iter"
	"strings"

	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/stacks"
)

// Args reads a command's trace arguments into inputs: a NAME.sec argument
// is the key file of the trace before it (Android 6-7 wrote streaming
// summaries there). No argument, or a key file without its trace, is a
// *UsageError.
func Args(args []string) ([]input.Arg, error) {
	var ins []input.Arg
	for _, a := range args {
		if strings.HasSuffix(a, ".sec") {
			if len(ins) == 0 || ins[len(ins)-1].Sec != "" {
				return nil, Usagef("%s: a .sec key file must follow the streaming trace it belongs to", a)
			}
			ins[len(ins)-1].Sec = a
			continue
		}
		ins = append(ins, input.Arg{Path: a})
	}
	if len(ins) == 0 {
		return nil, Usagef("no trace given")
	}
	return ins, nil
}

// LoadOne loads the one input that args name (Args); another number is a
// *UsageError that says what the command takes ("top reads one trace")
// and how many it was given.
func (d *Driver) LoadOne(args []string, what string) (*Input, error) {
	ins, err := Args(args)
	if err != nil {
		return nil, err
	}
	if len(ins) != 1 {
		return nil, Usagef("%s, got %d", what, len(ins))
	}
	return d.Load(ins[0])
}

// Inputs loads the inputs that args name (Args) one at a time, as the
// loop asks for them; the loop ends at an error, which it is given.
func (d *Driver) Inputs(args []string) iter.Seq2[*Input, error] {
	return func(yield func(*Input, error) bool) {
		ins, err := Args(args)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, a := range ins {
			in, err := d.Load(a)
			if !yield(in, err) || err != nil {
				return
			}
		}
	}
}

// SameStream reports whether two inputs of the run read the same pipe or
// device, which only one of them could read (input.Opener.SameStream).
func (d *Driver) SameStream(a, b input.Arg) bool { return d.opener.SameStream(a, b) }

// Merge reads inputs whose trees are to be merged (pprof) one at a time,
// gives each tree to add and lets it go. It refuses a mix of sampled
// profiles and method traces before reading any (LoadAll), and trees
// whose values differ in kind (stacks.Values: samples counted, calls
// timed) as it meets them.
func (d *Driver) Merge(args []input.Arg, add func(*stacks.Tree) error) error {
	ins, err := d.LoadAll(args)
	if err != nil {
		return err
	}
	var first *stacks.Tree
	for _, in := range ins {
		t, err := in.Tree()
		if err != nil {
			return err
		}
		if first == nil {
			first = t
		} else if t.Values().Kind != first.Values().Kind {
			return Usagef("%s (%s) and %s (%s) cannot merge: one counts samples, the other calls and CPU time",
				ins[0].Name(), first.Source().Format, in.Name(), t.Source().Format)
		}
		if err := add(t); err != nil {
			return err
		}
	}
	return nil
}
