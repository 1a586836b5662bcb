package main

import (
	"bufio"
	"os"
)

// pipeInput is a named input that can be read only once: a pipe (bash's
// <(...)), /dev/stdin or another device. It is opened once, and what the
// sniff peeks at stays buffered for the reader that follows.
type pipeInput struct {
	f *os.File
	r *bufio.Reader
}

// pipe returns the input's pipeInput when its path names a pipe or a
// device, opening it on first use.
func (g *Globals) pipe(in input) (*pipeInput, bool) {
	if in.path == "-" {
		return nil, false
	}
	if p, ok := g.env.pipes[in.path]; ok {
		return p, true
	}
	st, err := os.Stat(in.path)
	if err != nil || st.Mode().IsRegular() || st.IsDir() {
		return nil, false // the parser opens it, or says why it cannot
	}
	f, err := os.Open(in.path)
	if err != nil {
		return nil, false
	}
	p := &pipeInput{f: f, r: bufio.NewReaderSize(f, 64<<10)}
	if g.env.pipes == nil {
		g.env.pipes = make(map[string]*pipeInput)
	}
	g.env.pipes[in.path] = p
	return p, true
}

// closePipes closes the pipes the run opened.
func (e *env) closePipes() {
	for name, p := range e.pipes {
		p.f.Close()
		delete(e.pipes, name)
	}
}
