package outfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/atrace2/atrace2/internal/reference"
)

func TestOutputIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	opt := Options{What: "test", Binary: true, Stdout: &bytes.Buffer{}}
	out, err := Create(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(out, "half")
	out.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("an aborted output left %v", entries)
	}
	out, _ = Create(path, opt)
	io.WriteString(out, "whole")
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the output exists before Commit")
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	out.Abort() // after Commit: nothing happens
	if b, err := os.ReadFile(path); err != nil || string(b) != "whole" {
		t.Fatalf("after Commit: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

// TestOutputRewinder: taking back an output leaves an empty file that the
// next writes start again; outputs that are not files cannot be taken back.
func TestOutputRewinder(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"temporary file", "standard output file"} {
		f, err := os.Create(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		o := &File{bufferedWriter: newBuffered(f, false), final: f.Name()}
		if kind == "temporary file" {
			o.tmp = f
		} else {
			o.fresh = f
		}
		fmt.Fprint(o, "taken back")
		if err := o.Rewinder()(); err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(o, "kept")
		if err := o.Flush(); err != nil {
			t.Fatal(err)
		}
		o.stop()
		f.Close()
		if got, _ := os.ReadFile(f.Name()); string(got) != "kept" {
			t.Errorf("%s: %q after a rewind, want %q", kind, got, "kept")
		}
	}
	o := &File{bufferedWriter: newBuffered(&bytes.Buffer{}, false)}
	defer o.stop()
	if o.Rewinder() != nil {
		t.Error("a buffer can be taken back")
	}
	// What went to the null device needs no taking back; other devices
	// cannot be rewound.
	for dev, want := range map[string]bool{os.DevNull: true, "/dev/zero": false} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		o, err := Create(dev, Options{What: "test", Binary: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Rewinder() != nil; got != want {
			t.Errorf("%s: can be taken back %v, want %v", dev, got, want)
		}
		o.Abort()
	}
}

// TestStdoutFile: standard output can be taken back, to the size it had,
// when the shell opened it as an empty file for "> FILE" or to append to
// it for ">> FILE"; not when it is written over from its start.
func TestStdoutFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name     string
		old      string
		flag     int
		rewinder bool
		base     int64
	}{
		{"empty file", "", os.O_WRONLY | os.O_TRUNC, true, 0},
		{"appended to", "kept\n", os.O_WRONLY | os.O_APPEND, true, 5},
		{"written over", "kept\n", os.O_WRONLY, false, 0},
	} {
		name := filepath.Join(dir, "stdout")
		os.WriteFile(name, []byte(c.old), 0o644)
		f, err := os.OpenFile(name, c.flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, base := stdoutFile(f)
		if (got != nil) != c.rewinder || base != c.base {
			t.Errorf("%s: can be taken back %v to %d, want %v to %d", c.name, got != nil, base, c.rewinder, c.base)
		}
		f.Close()
	}
}

// countProgress counts what an output's Progress is told.
type countProgress struct {
	mu           sync.Mutex
	bytes, dones int
	afterDone    bool
}

func (c *countProgress) Wrote(n int) {
	c.mu.Lock()
	c.bytes += n
	c.afterDone = c.afterDone || c.dones > 0
	c.mu.Unlock()
}

func (c *countProgress) Done() { c.mu.Lock(); c.dones++; c.mu.Unlock() }

// TestProgress: an output's Progress is told of every byte written, on
// both writers, and Done once, at Commit or at Abort, with no write after.
func TestProgress(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))) // WriteBehind needs two
	for _, async := range []bool{false, true} {
		for _, commit := range []bool{true, false} {
			var c countProgress
			out, err := Create(filepath.Join(t.TempDir(), "out"), Options{What: "test", Progress: &c, WriteBehind: async})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := out.bufferedWriter.(*asyncWriter); ok != (async && !reference.Only) {
				t.Fatalf("WriteBehind %v: an asyncWriter %v", async, ok)
			}
			data := bytes.Repeat([]byte("x"), 3<<20+5)
			for i := 0; i < len(data); i += 1000 {
				out.Write(data[i:min(i+1000, len(data))])
			}
			if commit {
				if err := out.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			out.Abort()
			want := len(data)
			if !commit {
				want = c.bytes // whatever was written before the abort
			}
			if c.bytes != want || c.dones != 1 || c.afterDone {
				t.Errorf("async %v, commit %v: %d bytes (want %d), Done %d times, write after Done %v", async, commit, c.bytes, want, c.dones, c.afterDone)
			}
		}
	}
}

// TestAbortLeavesStdoutAsItWas: an output to standard output that fails
// after writing (Abort after a Flush) leaves a file appended to (>> FILE)
// as it was, and an empty one (> FILE) empty.
func TestAbortLeavesStdoutAsItWas(t *testing.T) {
	dir := t.TempDir()
	for _, old := range []string{"", "kept\n"} {
		name := filepath.Join(dir, "stdout")
		os.WriteFile(name, []byte(old), 0o644)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Create("-", Options{What: "test", Stdout: f})
		if err != nil {
			t.Fatal(err)
		}
		o.Write([]byte("half of an output"))
		if err := o.Flush(); err != nil {
			t.Fatal(err)
		}
		o.Abort()
		f.Close()
		if got, _ := os.ReadFile(name); string(got) != old {
			t.Errorf("after Abort: %q, want %q", got, old)
		}
	}
}
