package record

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// Record runs a capture from the first look at the device to the removal
// of the file there: Connect, Prepare, Start, the wait (Until), Stop, Fetch
// into a file in dir, Remove. It returns the path of the local copy. From
// the start on, the device is cleaned up whatever happens (Cleanup):
// after an error here, and on a signal (outfile.OnSignal) until the file
// is off the device. Ctrl-C (outfile.Interrupts) stops the recording, and
// only the recording.
func Record(ctx context.Context, c Capture, dir string) (string, error) {
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

// Keep copies the local copy of the trace into the trace's output (out)
// and commits it, unless a file appeared at its path (not "-") meanwhile
// and force is not set.
func Keep(out interface {
	io.Writer
	Commit() error
}, copyPath, path string, force bool) error {
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
