package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// convertTo runs "atrace2 perfetto -o path sample" and fails the test on
// a nonzero exit.
func convertTo(t *testing.T, path string) {
	t.Helper()
	if code, _, errOut := runCLI(t, nil, "perfetto", "-q", "-o", path, sample); code != exitOK {
		t.Fatalf("perfetto -o %s: exit %d: %s", path, code, errOut)
	}
}

// TestOutputToDevice: -o naming a device writes into it. Renaming a
// temporary file over it, as for a regular file, replaced /dev/null with a
// regular file (as root) or failed at the end (as anyone else). The test
// makes its own null device, so that a regression cannot harm the
// machine's.
func TestOutputToDevice(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // major 1, minor 3: /dev/null
		t.Skipf("cannot make a device here: %v", err)
	}
	convertTo(t, null)
	st, err := os.Lstat(null)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("after -o %s: mode %v, %v: no longer a character device", null, st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left beside the device: %v", entries)
	}
	// A failed write names the device once, without the PathError's
	// repetition ("writing /dev/full: write /dev/full: ...").
	if _, err := os.Stat("/dev/full"); err == nil {
		code, _, errOut := runCLI(t, nil, "perfetto", "-q", "-o", "/dev/full", sample)
		if want := "atrace2: writing /dev/full: no space left on device\n"; code != exitError || errOut != want {
			t.Errorf("-o /dev/full: exit %d, stderr %q; want %d, %q", code, errOut, exitError, want)
		}
	}
}

// TestOutputToFIFO: a named pipe gets the same bytes a regular file does,
// and stays a pipe.
func TestOutputToFIFO(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular.perfetto-trace")
	convertTo(t, regular)
	want, err := os.ReadFile(regular)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo) // blocks until the writer opens it
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	convertTo(t, fifo)
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("after the conversion %s is %v, %v: not a pipe", fifo, st.Mode(), err)
	}
	// If the conversion never opened the pipe, the reader still waits in
	// open: opening and closing a write end lets it finish (with nothing).
	if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Errorf("the pipe carried %d bytes, want the %d of the regular file", len(b), len(want))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left in %s: %v", dir, entries)
	}
}

// TestOutputThroughSymlink: the file a link points to is replaced, or
// created when the link dangles; the link stays a link.
func TestOutputThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.perfetto-trace")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.perfetto-trace")
	if err := os.Symlink("target.perfetto-trace", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	convertTo(t, link)
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("after the conversion %s is %v, %v: not a link", link, st.Mode(), err)
	}
	b, err := os.ReadFile(target)
	if err != nil || len(b) < 100 || string(b) == "old" {
		t.Errorf("the target holds %d bytes (%v): not the converted trace", len(b), err)
	}
	dangling := filepath.Join(dir, "dangling.perfetto-trace")
	if err := os.Symlink("sub/../new.perfetto-trace", dangling); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	convertTo(t, dangling)
	if st, err := os.Lstat(dangling); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("after the conversion %s is %v, %v: not a link", dangling, st.Mode(), err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new.perfetto-trace")); err != nil || !bytes.Equal(b, mustRead(t, target)) {
		t.Errorf("the dangling link's target holds %d bytes (%v), want the conversion", len(b), err)
	}
	// A relative link inside a linked folder is read from the folder's
	// real place, as the kernel does: linkdir/out -> real/a/out ->
	// ../target is real/target, not ./target.
	os.MkdirAll(filepath.Join(dir, "real", "a"), 0o755)
	os.Symlink(filepath.Join("real", "a"), filepath.Join(dir, "linkdir"))
	os.Symlink(filepath.Join("..", "target"), filepath.Join(dir, "real", "a", "out"))
	os.WriteFile(filepath.Join(dir, "target"), []byte("bystander"), 0o644)
	convertTo(t, filepath.Join(dir, "linkdir", "out"))
	if b := mustRead(t, filepath.Join(dir, "target")); string(b) != "bystander" {
		t.Errorf("./target was replaced (%d bytes)", len(b))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "real", "target")); err != nil || len(b) < 100 {
		t.Errorf("real/target holds %d bytes (%v), want the conversion", len(b), err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOutputToDirectoryOrTerminal: a directory fails before converting;
// a terminal named with -o is refused binary data, as stdout is.
func TestOutputToDirectoryOrTerminal(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCLI(t, nil, "perfetto", "-q", "-o", dir, sample)
	if want := "atrace2: creating " + dir + ": is a directory\n"; code != exitError || errOut != want {
		t.Errorf("-o a directory: exit %d, stderr %q; want %d, %q", code, errOut, exitError, want)
	}
	tty := openPty(t)
	code, _, errOut = runCLI(t, nil, "perfetto", "-q", "-o", tty.Name(), sample)
	if code != exitUsage || !strings.Contains(errOut, "refusing to write binary Perfetto data to the terminal "+tty.Name()) {
		t.Errorf("-o a terminal: exit %d, stderr %q; want %d and a refusal", code, errOut, exitUsage)
	}
}

// TestOutputNeverReplacesInput: an output path that names the trace (also
// through another spelling or a link) or another output of the same run is
// refused before converting, and the trace is left intact.
func TestOutputNeverReplacesInput(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "app.trace")
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, data, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.trace")
	if err := os.Symlink("app.trace", link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"perfetto", "-o", trace, trace}, "refusing to write the Perfetto output over the input " + trace},
		{[]string{"pprof", "-o", dir + "/./app.trace", trace}, "refusing to write the pprof output over the input " + trace},
		{[]string{"speedscope", "-o", link, trace}, "refusing to write the speedscope output over the input " + trace},
		{[]string{"folded", "-o", trace, link}, "refusing to write the folded output over the input " + link},
		{[]string{"convert", "--folded", trace, trace}, "refusing to write the folded output over the input " + trace},
		{[]string{"convert", "--pprof", other, "--folded", dir + "//out", trace}, "--pprof and --folded name the same file"},
	} {
		code, _, errOut := runCLI(t, nil, append([]string{"-q"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, exitUsage, c.want)
		}
		if b, err := os.ReadFile(trace); err != nil || !bytes.Equal(b, data) {
			t.Fatalf("%v: the trace was changed (%d bytes, %v)", c.args, len(b), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left in %s: %v", dir, entries)
	}
	// Inputs the arguments do not name as such: standard input that is
	// the file, and the halves of a key/data pair.
	stdin, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out, errb bytes.Buffer
	code := run([]string{"folded", "-q", "-o", trace, "-"}, &env{stdin: stdin, stdout: &out, stderr: &errb})
	if want := "refusing to write the folded output over the input on standard input"; code != exitUsage || !strings.Contains(errb.String(), want) {
		t.Errorf("stdin: exit %d, stderr %q; want %d and %q", code, errb.String(), exitUsage, want)
	}
	pair := filepath.Join(dir, "pair")
	os.WriteFile(pair+".key", []byte("*version\n"), 0o644)
	os.WriteFile(pair+".data", []byte("SLOW"), 0o644)
	for _, args := range [][]string{{"folded", "-o", pair + ".data", pair + ".key"}, {"speedscope", "-o", pair + ".key", pair}} {
		code, _, errOut := runCLI(t, nil, append([]string{"-q"}, args...)...)
		if code != exitUsage || !strings.Contains(errOut, "refusing to write") {
			t.Errorf("%v: exit %d, stderr %q; want a refusal", args, code, errOut)
		}
	}
	if b := mustRead(t, trace); !bytes.Equal(b, data) {
		t.Fatal("the trace was changed")
	}
	if string(mustRead(t, pair+".key")) != "*version\n" || string(mustRead(t, pair+".data")) != "SLOW" {
		t.Error("a half of the pair was changed")
	}
}

// TestConvertKeepsAllOrNone: when one of convert's outputs fails at the
// end, the others are not kept either ("No output is kept unless every
// one is complete"); they used to be renamed one by one.
func TestConvertKeepsAllOrNone(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	dir := t.TempDir()
	code, _, errOut := runCLI(t, nil, "convert", "-q", "--pprof", filepath.Join(dir, "app.pb.gz"),
		"--speedscope", filepath.Join(dir, "app.speedscope.json"), "--folded", "/dev/full", sample)
	if want := "atrace2: writing /dev/full: no space left on device\n"; code != exitError || errOut != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, errOut, exitError, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("kept although --folded failed: %v", entries)
	}
}

// TestWriteErrorsFail: every command exits 1 with one line naming standard
// output when it cannot be written (here /dev/full), kong's help and
// version text included; info and --version used to exit 0.
func TestWriteErrorsFail(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here: the test needs a device that refuses writes")
	}
	_, sampled := sampledFiles(t)
	for _, args := range [][]string{
		{"--version"},
		{"--help"},
		{"info", "--help"},
		{"info", sample},
		{"info", "--format", "json", sample},
		{"dump", sample},
		{"top", sample},
		{"top", "--format", "csv", sampled["app.hprof"]},
		{"calls", sample, "."},
		{"diff", sample, sample},
		{"folded", sample},
		{"pprof", sample},
		{"perfetto", sample},
		{"speedscope", sample},
		{"convert", "--folded", "-", sample},
	} {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		code := run(append([]string{"-q"}, args...), &env{stdin: bytes.NewReader(nil), stdout: full, stderr: &errb})
		full.Close()
		if want := "atrace2: writing standard output: no space left on device\n"; code != exitError || errb.String() != want {
			t.Errorf("%v > /dev/full: exit %d, stderr %q; want %d, %q", args, code, errb.String(), exitError, want)
		}
	}
}
