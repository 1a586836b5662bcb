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
		// SIGPIPE: the write that raised it fails with EPIPE. Ctrl-C may
		// be a command's to handle (Interrupts).
		for s == syscall.SIGPIPE || s == os.Interrupt && hooks.forward(s) {
			s = <-c
		}
		signal.Reset(sigs...) // from now on a signal kills at once
		pending.removeAll()
		hooks.run()
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

// hooks are what commands add to the handling of signals: a channel that
// takes Ctrl-C instead (Interrupts), and clean-ups to run before the
// process dies (OnSignal).
var hooks signalHooks

type signalHooks struct {
	mu      sync.Mutex
	intr    chan<- os.Signal
	cleanup map[int]func()
	next    int
}

// Interrupts hands Ctrl-C (SIGINT) to c instead of ending the process,
// until release is called: a command that runs until interrupted (atrace2
// record) stops on it and goes on. When c cannot take the signal at once
// (its buffer is full: the command was interrupted already), the signal
// ends the process as usual, and so do the other signals all along.
func Interrupts(c chan<- os.Signal) (release func()) {
	hooks.mu.Lock()
	hooks.intr = c
	hooks.mu.Unlock()
	return func() {
		hooks.mu.Lock()
		if hooks.intr == c {
			hooks.intr = nil
		}
		hooks.mu.Unlock()
	}
}

// forward hands s to the Interrupts channel, and reports whether it did.
func (h *signalHooks) forward(s os.Signal) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case h.intr <- s: // a nil channel is never ready
		return true
	default:
		return false
	}
}

// OnSignal has f run when a signal ends the process, after the outputs
// are removed (atrace2 record stops the profiler on the device and
// removes its file there); remove undoes it. f runs with the signals'
// default handling restored, so a second Ctrl-C ends a slow f at once.
func OnSignal(f func()) (remove func()) {
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	if hooks.cleanup == nil {
		hooks.cleanup = map[int]func(){}
	}
	id := hooks.next
	hooks.next++
	hooks.cleanup[id] = f
	return func() {
		hooks.mu.Lock()
		delete(hooks.cleanup, id)
		hooks.mu.Unlock()
	}
}

// run runs the clean-ups OnSignal registered.
func (h *signalHooks) run() {
	h.mu.Lock()
	fs := make([]func(), 0, len(h.cleanup))
	for _, f := range h.cleanup {
		fs = append(fs, f)
	}
	h.mu.Unlock()
	for _, f := range fs {
		f()
	}
}
