package driver

import (
	"strings"

	"github.com/atrace2/atrace2/internal/input"
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

// SameStream reports whether two inputs of the run read the same pipe or
// device, which only one of them could read (input.Opener.SameStream).
func (d *Driver) SameStream(a, b input.Arg) bool { return d.opener.SameStream(a, b) }
