package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// side names the two builds.
var side = [2]string{"old", "new"}

// runner runs each command with both binaries and compares the results.
type runner struct {
	bins    [2]string
	dir     string // -dir, absolute
	verbose bool
	timeout time.Duration

	runDirs [2]string        // -dir/old, -dir/new: working directories
	tmpDirs [2]string        // their TMPDIRs
	ndiff   int              // differing commands so far, numbering -dir/diffs
	cpu     [2]time.Duration // CPU time the binaries took so far
}

// result is what one run produced.
type result struct {
	stdout, stderr []byte
	exit           string            // "exit 0", "signal: killed", "timeout"
	files          map[string][]byte // output files in the working directory
	tmpLeft        []string          // files left in TMPDIR
	cpu            time.Duration     // user and system CPU time of the process
}

// setup makes the working directories, each with a link "in" to the inputs.
func (r *runner) setup() error {
	for i, s := range side {
		r.runDirs[i] = filepath.Join(r.dir, s)
		r.tmpDirs[i] = filepath.Join(r.dir, "tmp-"+s)
		for _, d := range []string{r.runDirs[i], r.tmpDirs[i]} {
			if err := os.RemoveAll(d); err != nil {
				return err
			}
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		if err := os.Symlink("../in", filepath.Join(r.runDirs[i], "in")); err != nil {
			return err
		}
	}
	return os.RemoveAll(filepath.Join(r.dir, "diffs"))
}

// runAll runs every command and prints each difference; it returns the
// number of differences.
func (r *runner) runAll(cases []testCase) (int, error) {
	n := 0
	for _, c := range cases {
		for _, cmd := range c.cmds {
			t0 := time.Now()
			var res [2]*result
			var errs [2]error
			var wg sync.WaitGroup
			for i := range 2 {
				wg.Go(func() { res[i], errs[i] = r.runOne(i, cmd) })
			}
			wg.Wait()
			if err := errors.Join(errs[0], errs[1]); err != nil {
				return n, fmt.Errorf("%s: %s: %v", c.name, cmd, err)
			}
			r.cpu[0] += res[0].cpu
			r.cpu[1] += res[1].cpu
			if r.verbose {
				fmt.Fprintf(os.Stderr, "%s: %s (%.2fs; CPU %.2fs, %.2fs)\n", c.name, cmd,
					time.Since(t0).Seconds(), res[0].cpu.Seconds(), res[1].cpu.Seconds())
			}
			diffs := compareResults(res[0], res[1], r.verbose)
			if len(diffs) > 0 {
				n += len(diffs)
				for _, d := range diffs {
					fmt.Printf("%s: %s: %s\n", c.name, cmd, d)
				}
				if err := r.keep(c.name, cmd, res); err != nil {
					return n, err
				}
			}
		}
	}
	return n, nil
}

// runOne runs cmd with binary i in its working directory, then collects
// and removes the files it wrote.
func (r *runner) runOne(i int, c command) (*result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	x := exec.CommandContext(ctx, r.bins[i], c.args...)
	x.Args[0] = "atrace2"
	x.Dir = r.runDirs[i]
	x.Env = append(append(os.Environ(), "TMPDIR="+r.tmpDirs[i]), c.env...)
	var stdout, stderr bytes.Buffer
	x.Stderr = &stderr
	x.Stdout = &stdout
	var stdoutFile *os.File
	if c.stdoutFile || c.stdoutAppend {
		name := filepath.Join(r.dir, "stdout-"+side[i])
		var prefix []byte
		if c.stdoutAppend {
			prefix = []byte(appendPrefix)
		}
		if err := os.WriteFile(name, prefix, 0o644); err != nil {
			return nil, err
		}
		flags := os.O_WRONLY
		if c.stdoutAppend {
			flags |= os.O_APPEND
		}
		f, err := os.OpenFile(name, flags, 0)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		x.Stdout, stdoutFile = f, f
	}
	if c.stdin != "" {
		f, err := os.Open(filepath.Join(r.runDirs[i], c.stdin))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if c.pipe {
			x.Stdin = struct{ io.Reader }{f} // not an *os.File: exec makes a pipe
		} else {
			x.Stdin = f
		}
	}
	err := x.Run()
	res := &result{stderr: stderr.Bytes()}
	if x.ProcessState != nil {
		res.cpu = x.ProcessState.UserTime() + x.ProcessState.SystemTime()
	}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.exit = "timeout after " + r.timeout.String()
	case err == nil:
		res.exit = "exit 0"
	case errors.As(err, &ee):
		if ee.ExitCode() >= 0 {
			res.exit = fmt.Sprintf("exit %d", ee.ExitCode())
		} else {
			res.exit = ee.String()
		}
	default:
		return nil, err
	}
	if stdoutFile != nil {
		b, err := os.ReadFile(stdoutFile.Name())
		if err != nil {
			return nil, err
		}
		res.stdout = b
	} else {
		res.stdout = stdout.Bytes()
	}
	res.stdout = normalize(res.stdout, r.runDirs[i], r.tmpDirs[i])
	res.stderr = normalize(res.stderr, r.runDirs[i], r.tmpDirs[i])
	if res.files, err = collect(r.runDirs[i]); err != nil {
		return nil, err
	}
	left, err := collect(r.tmpDirs[i])
	if err != nil {
		return nil, err
	}
	for name := range left {
		res.tmpLeft = append(res.tmpLeft, name)
	}
	slices.Sort(res.tmpLeft)
	return res, nil
}

// normalize replaces the working and temporary folders' absolute paths,
// which differ between the two sides, with $RUN and $TMP.
func normalize(b []byte, run, tmp string) []byte {
	b = bytes.ReplaceAll(b, []byte(run), []byte("$RUN"))
	return bytes.ReplaceAll(b, []byte(tmp), []byte("$TMP"))
}

// collect reads and removes every file under dir except the "in" link.
func collect(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." || d.IsDir() {
			return nil
		}
		if rel == "in" && d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			b = []byte("unreadable: " + err.Error())
		}
		files[rel] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.Name() == "in" && e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// compareResults lists how new differs from old, one line each.
func compareResults(old, new *result, verbose bool) []string {
	var d []string
	if old.exit != new.exit {
		d = append(d, fmt.Sprintf("exit status differs: old %q, new %q", old.exit, new.exit))
	}
	if s := compareBytes("stdout", old.stdout, new.stdout, verbose); s != "" {
		d = append(d, s)
	}
	if s := compareBytes("stderr", old.stderr, new.stderr, verbose); s != "" {
		d = append(d, s)
	}
	names := map[string]bool{}
	for n := range old.files {
		names[n] = true
	}
	for n := range new.files {
		names[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		o, inOld := old.files[n]
		w, inNew := new.files[n]
		switch {
		case !inNew:
			d = append(d, fmt.Sprintf("file %s written only by old", n))
		case !inOld:
			d = append(d, fmt.Sprintf("file %s written only by new", n))
		default:
			if s := compareBytes("file "+n, o, w, verbose); s != "" {
				d = append(d, s)
			}
		}
	}
	if !slices.Equal(old.tmpLeft, new.tmpLeft) {
		d = append(d, fmt.Sprintf("files left in TMPDIR differ: old %q, new %q", old.tmpLeft, new.tmpLeft))
	}
	return d
}

// compareBytes compares two outputs, gzip ones uncompressed, and returns
// "" when they are equal, else where they first differ.
func compareBytes(what string, old, new []byte, verbose bool) string {
	if bytes.Equal(old, new) {
		return ""
	}
	if ou, err := gunzip(old); err == nil {
		if nu, err := gunzip(new); err == nil {
			if bytes.Equal(ou, nu) {
				return ""
			}
			what += " (uncompressed)"
			old, new = ou, nu
		}
	}
	off := firstDiff(old, new)
	s := fmt.Sprintf("%s differs at byte %d (old %d bytes, new %d)", what, off, len(old), len(new))
	if verbose {
		s += fmt.Sprintf(": old %q, new %q", excerpt(old, off), excerpt(new, off))
	}
	return s
}

// gunzip decompresses b when it is gzip.
func gunzip(b []byte) ([]byte, error) {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return nil, errors.New("not gzip")
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// firstDiff returns the offset of the first byte where a and b differ (the
// shorter length when one is a prefix of the other).
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// excerpt returns the line of b around off, at most 120 bytes of it.
func excerpt(b []byte, off int) string {
	if off >= len(b) {
		return "<end>"
	}
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	start = max(start, off-60)
	end := bytes.IndexByte(b[off:], '\n')
	if end < 0 {
		end = len(b)
	} else {
		end += off
	}
	end = min(end, start+120)
	return string(b[start:end])
}

// keep saves both sides of a differing command in -dir/diffs/NNNN-old and
// NNNN-new, with the command line.
func (r *runner) keep(name string, c command, res [2]*result) error {
	r.ndiff++
	for i, s := range side {
		d := filepath.Join(r.dir, "diffs", fmt.Sprintf("%04d-%s", r.ndiff, s))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		put := func(n string, b []byte) error {
			p := filepath.Join(d, n)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			return os.WriteFile(p, b, 0o644)
		}
		meta := fmt.Sprintf("case: %s\ncommand: %s\nbinary: %s\n%s\n", name, c, r.bins[i], res[i].exit)
		if err := errors.Join(put("COMMAND", []byte(meta)), put("STDOUT", res[i].stdout), put("STDERR", res[i].stderr)); err != nil {
			return err
		}
		for n, b := range res[i].files {
			if err := put("files/"+strings.ReplaceAll(n, "..", "_"), b); err != nil {
				return err
			}
		}
	}
	return nil
}
