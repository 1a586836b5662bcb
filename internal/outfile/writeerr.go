package outfile

import (
	"errors"
	"fmt"
	"io"
	"syscall"
)

// WriteError is a failed write to an output: "writing NAME: what failed".
type WriteError struct {
	Name   string // the path, or "standard output"
	Stdout bool   // the output is standard output
	Err    error  // the cause, without the *fs.PathError around it
}

func (e *WriteError) Error() string { return fmt.Sprintf("writing %s: %v", e.Name, e.Err) }

func (e *WriteError) Unwrap() error { return e.Err }

// stdoutName names standard output in messages.
const stdoutName = "standard output"

// writeErr wraps err, a failure to write the output called name, in a
// WriteError, unless it is one already.
func writeErr(name string, stdout bool, err error) error {
	if err == nil {
		return nil
	}
	if we := (*WriteError)(nil); errors.As(err, &we) {
		return err
	}
	return &WriteError{Name: name, Stdout: stdout, Err: pathErr(err)}
}

// namedWriter is the writer under an output's buffer: it names the output
// in its errors, once per chunk written rather than per small write.
// It also tells the output's Progress, if any, of each chunk.
type namedWriter struct {
	w      io.Writer
	name   string
	stdout bool
	prog   Progress
}

func (n *namedWriter) Write(p []byte) (int, error) {
	k, err := n.w.Write(p)
	if n.prog != nil {
		n.prog.Wrote(k)
	}
	return k, writeErr(n.name, n.stdout, err)
}

// IsBrokenPipe reports whether err is a write to standard output whose
// reader has gone (EPIPE): a pipeline's `| head` is done, and a command
// line tool dies of SIGPIPE quietly, as it would have without atrace2's
// signal handler (see HandleSignals).
func IsBrokenPipe(err error) bool {
	we := (*WriteError)(nil)
	return errors.As(err, &we) && we.Stdout && errors.Is(we.Err, syscall.EPIPE)
}

// Writer wraps w, which is standard output written by something else
// than a File (kong's help and version text), so that its first failure
// is kept: Err returns it as a WriteError.
type Writer struct {
	w   io.Writer
	err error
}

// NewStdout returns a Writer over standard output.
func NewStdout(w io.Writer) *Writer { return &Writer{w: w} }

func (s *Writer) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil && s.err == nil {
		s.err = writeErr(stdoutName, true, err)
	}
	return n, err
}

// Err is the first write error, or nil.
func (s *Writer) Err() error { return s.err }
