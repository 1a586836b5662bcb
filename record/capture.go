package record

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/units"
)

// Capture is one recording as atrace2 record runs it: the device, what to
// record (Options.Log is told what goes on), when to stop, and where the
// warnings go.
type Capture struct {
	Config
	Options
	// Duration stops the recording this long after its start; 0 leaves
	// it to Enter and Ctrl-C, which stop sooner.
	Duration time.Duration
	Stdin    io.Reader    // a line on it (Enter) stops the recording
	Warn     func(string) // the clean-up's warning, and what an interrupt does
}

// Output is the trace's output: written whole, then kept (outfile.File).
type Output interface {
	io.Writer
	Commit() error
}

// Record runs a capture and writes the trace to out, whose path is path
// ("-" for standard output): it records into a local copy in a temporary
// folder (capture), and writes it to out unless a file appeared at path
// meanwhile and force is not set. It returns the local copy, there until
// remove is called.
func Record(ctx context.Context, c Capture, out Output, path string, force bool) (local string, remove func(), err error) {
	dir, remove, err := outfile.TempDir("atrace2-record-")
	if err != nil {
		return "", nil, err
	}
	if local, err = capture(ctx, c, dir); err == nil {
		err = keep(out, local, path, force)
	}
	if err != nil {
		remove()
		return "", nil, err
	}
	return local, remove, nil
}

// capture runs a capture from the first look at the device to the removal
// of the file there: Connect, Prepare, Start, the wait (Until), Stop, Fetch
// into a file in dir, Remove. It returns the path of the local copy. From
// the start on, the device is cleaned up whatever happens (Cleanup):
// after an error here, and on a signal (outfile.OnSignal) until the file
// is off the device. Ctrl-C (outfile.Interrupts) stops the recording, and
// only the recording.
func capture(ctx context.Context, c Capture, dir string) (string, error) {
	dev, err := Connect(ctx, c.Config)
	if err != nil {
		return "", err
	}
	s, err := dev.Prepare(ctx, c.Options)
	if err != nil {
		return "", err
	}
	warn := func() {
		if msg := s.Cleanup(); msg != "" {
			c.Warn("warning: " + msg)
		}
	}
	defer warn()
	unhook := outfile.OnSignal(func() {
		c.Warn(fmt.Sprintf("interrupted: stopping the profiler and removing %s from %s (interrupt again to quit at once)", s.Remote(), s.Serial()))
		warn()
	})
	defer unhook()
	intr := make(chan os.Signal, 1)
	release := outfile.Interrupts(intr)
	defer release()
	var deadline time.Time
	if c.Duration > 0 {
		deadline = time.Now().Add(c.Duration)
	}
	s.log("%s", s.Describe())
	if err := s.Start(ctx); err != nil {
		return "", err
	}
	if c.Duration > 0 {
		s.log("recording for %v: Enter or Ctrl-C stops sooner", c.Duration)
	} else {
		s.log("recording: press Enter or Ctrl-C to stop")
	}
	why := Until(ctx, c.Stdin, deadline, intr)
	release()
	s.log("stopped (%s): waiting for %s to write the trace", why, c.Package)
	if err := s.Stop(ctx); err != nil {
		return "", err
	}
	f, err := os.Create(filepath.Join(dir, filepath.Base(s.Remote())))
	if err != nil {
		return "", err
	}
	defer f.Close()
	size, err := s.Fetch(ctx, f)
	if err != nil {
		return "", err
	}
	if err := s.Remove(ctx); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	s.log("copied %s bytes and removed %s from the device", units.Count(size), s.Remote())
	return f.Name(), nil
}

// keep copies the local copy of the trace into the trace's output (out)
// and commits it, unless a file appeared at its path (not "-") meanwhile
// and force is not set.
func keep(out Output, copyPath, path string, force bool) error {
	f, err := os.Open(copyPath)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(out, f); err != nil {
		return err
	}
	if path != "-" && !force {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s appeared while recording: the trace is not written over it (give another -o FILE, or --force)", path)
		}
	}
	return out.Commit()
}

// DefaultName is the trace's file name when none is given:
// <package>-<date>.trace, such as com.example.app-20260830-142501.trace.
func DefaultName(pkg string, now time.Time) string {
	return fmt.Sprintf("%s-%s.trace", pkg, now.Format("20060102-150405"))
}

// Files names the files of a recording: the trace's, output ("-" for
// standard output) or base when it is ""; and with ext, the file of its
// conversion beside it: the trace's name with ext for .trace (base's when
// the trace goes to standard output). Neither may exist unless force: the
// error says so.
func Files(output, base, ext string, force bool) (trace, converted string, err error) {
	trace = output
	if trace == "" {
		trace = base
	}
	if ext != "" {
		from := trace
		if from == "-" {
			from = base
		}
		converted = strings.TrimSuffix(from, ".trace") + ext
	}
	for _, p := range []string{trace, converted} {
		if p == "" || p == "-" || force {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			return "", "", fmt.Errorf("%s exists: give another -o FILE, or --force to replace it", p)
		}
	}
	return trace, converted, nil
}
