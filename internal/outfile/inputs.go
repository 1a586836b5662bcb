package outfile

import (
	"io"
	"os"
)

// Inputs are the files a run reads, which no output may replace: the
// rename at the end would replace the trace with its conversion.
type Inputs struct {
	// Paths are the input files; "-" stands for Stdin.
	Paths []string
	// Stdin is standard input; it may be the file itself (< app.trace).
	Stdin io.Reader
}

// Add records more inputs.
func (in *Inputs) Add(paths ...string) { in.Paths = append(in.Paths, paths...) }

// Check refuses an output path that names one of the inputs; what names
// the output in the message. A nil Inputs refuses nothing.
func (in *Inputs) Check(path, what string) error {
	if in == nil || path == "" || path == "-" {
		return nil
	}
	out, err := os.Stat(path)
	if err != nil || !out.Mode().IsRegular() {
		return nil
	}
	for _, p := range in.Paths {
		if p == "-" {
			// Standard input may be the file itself: < app.trace.
			if f, ok := in.Stdin.(*os.File); ok {
				if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && os.SameFile(st, out) {
					return refusef("refusing to write the %s output over the input on standard input", what)
				}
			}
			continue
		}
		if st, err := os.Stat(p); err == nil && os.SameFile(st, out) {
			return refusef("refusing to write the %s output over the input %s", what, p)
		}
	}
	return nil
}

// SamePath reports whether two output paths (not "" or "-") name the same
// file: the same path once cleaned and its links followed, or the same
// existing file.
func SamePath(a, b string) bool {
	if a == "" || b == "" || a == "-" || b == "-" {
		return false
	}
	if resolved(a) == resolved(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
