package outfile

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// pending holds the temporary files being written and the directories of
// TempDir (with a nil file), which a signal removes before the process dies
// of it (HandleSignals), and the regular files standard output is being
// written into, which it empties.
var pending = pendingFiles{files: map[string]*os.File{}, stdouts: map[*os.File]bool{}}

type pendingFiles struct {
	mu      sync.Mutex
	files   map[string]*os.File
	stdouts map[*os.File]bool
}

// addStdout registers standard output, an empty regular file being
// written (File.fresh), for emptying on a signal.
func (p *pendingFiles) addStdout(f *os.File) {
	p.mu.Lock()
	p.stdouts[f] = true
	p.mu.Unlock()
}

// doneStdout forgets standard output: it is complete, or emptied.
func (p *pendingFiles) doneStdout(f *os.File) {
	p.mu.Lock()
	delete(p.stdouts, f)
	p.mu.Unlock()
}

// lockedWriter writes standard output's file while holding the lock of
// pending, so that once a signal has emptied it (removeAll keeps the lock)
// no chunk still on its way lands after the truncation.
type lockedWriter struct{ f *os.File }

func (w lockedWriter) Write(b []byte) (int, error) {
	pending.mu.Lock()
	defer pending.mu.Unlock()
	return w.f.Write(b)
}

// create makes a new temporary file in dir, named prefix and a random
// number, with the permissions perm less the umask (os.CreateTemp's are
// always 0600), and registers it in the same step, so that no signal falls
// between the two.
func (p *pendingFiles) create(dir, prefix string, perm os.FileMode) (*os.File, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if os.IsExist(err) && try < 10000 {
			continue
		}
		if err == nil {
			p.files[f.Name()] = f
		}
		return f, err
	}
}

// commit renames the finished temporary files of outs into place, all
// while holding the lock, so that a signal removes all or none of them.
func (p *pendingFiles) commit(outs []*File) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, o := range outs {
		if o.done || o.tmp == nil {
			continue
		}
		name := o.tmp.Name()
		if _, ok := p.files[name]; !ok {
			return fmt.Errorf("writing %s: removed by a signal", o.final)
		}
		if err := os.Rename(name, o.final); err != nil {
			return fmt.Errorf("writing %s: %w", o.final, pathErr(err))
		}
		delete(p.files, name)
		o.done = true
	}
	return nil
}

// done forgets a file that was removed.
func (p *pendingFiles) done(name string) {
	p.mu.Lock()
	delete(p.files, name)
	p.mu.Unlock()
}

// removeAll removes every pending file and empties standard output's. It
// keeps the lock, so that no output is renamed into place, and nothing
// more written to standard output, while the process dies.
func (p *pendingFiles) removeAll() {
	p.mu.Lock()
	for name, f := range p.files {
		if runtime.GOOS == "windows" && f != nil {
			f.Close() // Windows removes no open file
		}
		os.RemoveAll(name) // a file, or a directory of TempDir
		delete(p.files, name)
	}
	for f := range p.stdouts {
		f.Truncate(0)
		delete(p.stdouts, f)
	}
}

// HandleSignals makes Ctrl-C, SIGTERM, SIGHUP and SIGQUIT remove the
// outputs being written, as a failed conversion does, and empty standard
// output when it is a file being written (> FILE), and then lets the
// process die of the same signal, so that a shell loop around atrace2
// stops too (SIGQUIT: Go's goroutine dump and exit status 2). Signals the
// process started with ignored (a background job's Ctrl-C, nohup's
// SIGHUP) stay ignored.
//
// SIGPIPE is caught as well, so that a write to a standard output whose
// reader has gone fails with EPIPE like any other write error, and the
// command removes its outputs, instead of Go killing the process in the
// middle of the write; the command line then dies of SIGPIPE itself
// (DieOfSIGPIPE).
func HandleSignals() {
	var sigs []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) == 0 {
		return
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, sigs...)
	// Windows has no SIGPIPE: a broken pipe is an error like another.
	catchingSIGPIPE.Store(runtime.GOOS != "windows" && !signal.Ignored(syscall.SIGPIPE))
	go func() {
		s := <-c
		for s == syscall.SIGPIPE {
			s = <-c // the write that raised it fails with EPIPE
		}
		signal.Reset(sigs...) // from now on a signal kills at once
		pending.removeAll()
		if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(s) == nil {
			time.Sleep(time.Second) // the signal is on its way
		}
		// Where a process cannot signal itself (Windows): the shell's code.
		os.Exit(signalCode(s))
	}()
}

// catchingSIGPIPE is set while HandleSignals catches SIGPIPE.
var catchingSIGPIPE atomic.Bool

// SIGPIPEKills reports whether the process would have died of SIGPIPE on
// a write to a broken pipe, had HandleSignals not caught it: then a
// command line dies of it quietly (DieOfSIGPIPE) rather than print an
// error. Where SIGPIPE was ignored from the start, EPIPE is an error.
func SIGPIPEKills() bool { return catchingSIGPIPE.Load() }

// DieOfSIGPIPE ends the process the way a write to a broken standard
// output would have without HandleSignals, once the outputs are removed.
// Go ignores a SIGPIPE sent with kill, so it writes to standard output
// again with the default handling restored, which the runtime turns into
// death by SIGPIPE.
func DieOfSIGPIPE() {
	signal.Reset(syscall.SIGPIPE)
	os.Stdout.Write([]byte{'\n'})
	os.Exit(signalCode(syscall.SIGPIPE))
}

// signalCode is the exit status a shell shows for death by s.
func signalCode(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}
