package outfile

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// pending holds the temporary files being written, and the directories of
// TempDir (with a nil file), which a signal removes before the process dies
// of it (HandleSignals).
var pending = pendingFiles{files: map[string]*os.File{}}

type pendingFiles struct {
	mu    sync.Mutex
	files map[string]*os.File
}

// create makes a temporary file and registers it in one step, so that no
// signal falls between the two.
func (p *pendingFiles) create(dir, pattern string) (*os.File, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		p.files[f.Name()] = f
	}
	return f, err
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

// removeAll removes every pending file. It keeps the lock, so that no
// output is renamed into place while the process dies.
func (p *pendingFiles) removeAll() {
	p.mu.Lock()
	for name, f := range p.files {
		if runtime.GOOS == "windows" && f != nil {
			f.Close() // Windows removes no open file
		}
		os.RemoveAll(name) // a file, or a directory of TempDir
		delete(p.files, name)
	}
}

// HandleSignals makes Ctrl-C, SIGTERM and SIGHUP remove the outputs being
// written, as a failed conversion does, and then kills the process with
// the same signal, so that a shell loop around atrace2 stops too. Signals
// the process started with ignored (a background job's Ctrl-C, nohup's
// SIGHUP) stay ignored.
func HandleSignals() {
	var sigs []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) == 0 {
		return
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, sigs...)
	go func() {
		s := <-c
		signal.Reset(sigs...) // from now on a signal kills at once
		pending.removeAll()
		if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(s) == nil {
			time.Sleep(time.Second) // the signal is on its way
		}
		// Where a process cannot signal itself (Windows): the shell's code.
		code := 130
		if n, ok := s.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		os.Exit(code)
	}()
}
