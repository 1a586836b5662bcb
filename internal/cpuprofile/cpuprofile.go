// Package cpuprofile writes a Go CPU profile of a run of atrace2 (the
// hidden flag --cpu-profile, for atrace2's developers: where a
// conversion's time goes).
package cpuprofile

import (
	"io"
	"runtime/pprof"

	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/parser"
)

// Start starts a CPU profile into path, when it is not ""; the returned
// function stops it and keeps the file. The file is an output like the others
// (outfile.Create): written under a temporary name and renamed at the end,
// and refused when it names one of the traces the run reads (with their
// key files, parser.Sources) or standard input (stdin), which it used to
// replace before anything was read.
func Start(path string, traces []string, stdin io.Reader) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	ins := outfile.Inputs{Stdin: stdin}
	for _, t := range traces {
		ins.Add(t)
		ins.Add(parser.Sources(t)...)
	}
	out, err := outfile.Create(path, outfile.Options{What: "CPU profile", Binary: true, Inputs: &ins})
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Abort()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		defer out.Abort()
		return out.Commit()
	}, nil
}
