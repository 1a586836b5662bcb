// Command atrace2-compare checks that two atrace2 builds give byte-for-byte
// identical results: the same standard output, standard error, exit code
// and output files, for every command and option, on the corpus
// (../shared/corpus), testdata/sample.trace and generated traces of every
// variant. gzip output (pprof) is compared uncompressed.
//
// Compare two binaries:
//
//	go run ./cmd/atrace2-compare -old /work/bin/atrace2-base -new /tmp/me/atrace2
//
// or build a git revision and the checkout's working tree (uncommitted
// changes included), and compare those:
//
//	go run ./cmd/atrace2-compare -base HEAD~1
//
// It prints one line per difference: the case (the input), the command
// line, what differs (stdout, stderr, exit code, an output file) and the
// first differing byte, then "N cases, M commands, K differences". The exit
// status is 0 when the builds agree, 1 when anything differs, 2 on usage or
// setup errors.
//
// What runs (-list prints every command): on every method trace the main
// commands (info, info --format json, dump, pprof -o, perfetto -o,
// speedscope -o, folded, top -n 0, calls, convert with all four outputs,
// diff against the sample); on a few inputs of each variant every option
// of every command and the global flags, standard input as a file, a pipe
// and /dev/stdin, standard output into a pipe, an empty file, a file opened
// for appending and /dev/null, and GOMAXPROCS=1 (no pipeline); on sampled
// profiles the commands that read them and the two that refuse them; on
// broken or foreign files every command; and help, version and usage
// errors. Files left in TMPDIR are compared too. pprof --http is left out.
//
// The inputs are written to -dir/in (by default a new temporary folder,
// so that several comparisons can run at once): corpus files and the
// sample are copied; the generated traces come from internal/tracegen and
// samples/samplegen with fixed seeds (see gen.go for the list). Both
// binaries run with the same arguments, the input paths relative (in/NAME),
// each in a folder of its own (-dir/old, -dir/new) that holds a link "in"
// to the inputs and receives the output files, so paths in messages agree;
// the folders' absolute paths are replaced by $RUN and $TMP should they
// appear in the output. Each binary sees "atrace2" as its name (argv[0]).
// At most two commands run at a time: OLD and NEW of the same command.
//
// When something differs, both sides' stdout, stderr and output files are
// kept in -dir/diffs/NNNN-old and NNNN-new for inspection.
//
// -run REGEXP restricts the comparison to the commands whose case name and
// command line ("CASE: atrace2 ARGS") match, -short runs every option on
// the sample only and the main commands on the other inputs, for quick
// checks while working, and -list prints the commands without running
// anything.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Exit codes.
const (
	exitSame  = 0
	exitDiff  = 1
	exitSetup = 2
)

func main() { os.Exit(run()) }

func run() int {
	fs := flag.NewFlagSet("atrace2-compare", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: atrace2-compare -old OLDBIN -new NEWBIN [flags]
       atrace2-compare -base REF [flags]   (run inside an atrace2 checkout)

Runs every atrace2 command and option of both builds on the corpus, the
sample and generated traces, and prints each difference in stdout, stderr,
exit code or output files (gzip compared uncompressed). Exit status: 0 when
identical, 1 when anything differs, 2 on usage or setup errors.

Flags:
`)
		fs.PrintDefaults()
	}
	oldBin := fs.String("old", "", "the previous atrace2 binary")
	newBin := fs.String("new", "", "the atrace2 binary to check")
	base := fs.String("base", "", "instead of -old and -new: build this git revision (via git archive) as OLD and the checkout's working tree, uncommitted changes included, as NEW")
	dir := fs.String("dir", "", "work folder for the inputs (rewritten only when they change), the runs and kept differences (default: a new temporary folder, removed afterwards unless something differs)")
	corpus := fs.String("corpus", "", "folder of real traces (default: ../shared/corpus beside the checkout)")
	sample := fs.String("sample", "", "the sample trace (default: testdata/sample.trace of the checkout)")
	verbose := fs.Bool("v", false, "print every command as it runs, and excerpts of differing text")
	only := fs.String("run", "", "compare only the commands whose \"CASE: atrace2 ARGS\" matches this regular expression")
	list := fs.Bool("list", false, "print the cases and commands, run nothing")
	regen := fs.Bool("regen", false, "rewrite the generated inputs even if they are there already")
	short := fs.Bool("short", false, "every option on the sample only, the main commands on the other inputs (three fifths of the commands)")
	timeout := fs.Duration("timeout", 2*time.Minute, "time limit of one command")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitSame
		}
		return exitSetup
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "atrace2-compare: "+format+"\n", a...)
		return exitSetup
	}
	if fs.NArg() != 0 {
		return fail("unexpected arguments %q (see -h)", fs.Args())
	}
	if !*list && (*base == "") == (*oldBin == "" || *newBin == "") {
		return fail("give -old and -new, or -base (see -h)")
	}
	var filter *regexp.Regexp
	if *only != "" {
		var err error
		if filter, err = regexp.Compile(*only); err != nil {
			return fail("-run: %v", err)
		}
	}
	root := findRoot()
	if *corpus == "" && root != "" {
		*corpus = filepath.Join(filepath.Dir(root), "shared", "corpus")
	}
	if *sample == "" && root != "" {
		*sample = filepath.Join(root, "testdata", "sample.trace")
	}
	if *sample == "" {
		return fail("no atrace2 checkout holds the working directory: run it inside one, or give -sample and -corpus")
	}
	if !isFile(*sample) {
		return fail("sample trace %q not found: run inside an atrace2 checkout or give -sample", *sample)
	}
	if *corpus == "" || !isDir(*corpus) {
		return fail("corpus folder %q not found: give -corpus", *corpus)
	}
	tempDir := *dir == ""
	keep := false // keep a temporary -dir: it holds differences
	if tempDir {
		d, err := os.MkdirTemp("", "atrace2-compare-")
		if err != nil {
			return fail("%v", err)
		}
		*dir = d
		defer func() {
			if !keep {
				os.RemoveAll(d)
			}
		}()
	} else if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fail("%v", err)
	}
	absDir, err := filepath.Abs(*dir)
	if err != nil {
		return fail("%v", err)
	}
	inDir := filepath.Join(absDir, "in")
	inputs, err := prepareInputs(inDir, root, *corpus, *sample, *regen)
	if err != nil {
		return fail("writing the inputs: %v", err)
	}
	if *short {
		for i := range inputs {
			inputs[i].rich = inputs[i].name == "sample.trace"
		}
	}
	cases := buildCases(inputs)
	if filter != nil {
		cases = filterCases(cases, filter)
	}
	if *list {
		for _, c := range cases {
			for _, cmd := range c.cmds {
				fmt.Printf("%s: %s\n", c.name, cmd)
			}
		}
		fmt.Printf("%d cases, %d commands\n", len(cases), countCommands(cases))
		return exitSame
	}

	if *base != "" {
		if root == "" {
			return fail("-base needs an atrace2 checkout as the working directory")
		}
		*oldBin, *newBin, err = buildBoth(root, *base, absDir)
		if err != nil {
			return fail("%v", err)
		}
	}
	for _, b := range []*string{oldBin, newBin} {
		p, err := exec.LookPath(*b)
		if err != nil {
			return fail("%v", err)
		}
		if *b, err = filepath.Abs(p); err != nil {
			return fail("%v", err)
		}
	}
	r := &runner{
		bins:    [2]string{*oldBin, *newBin},
		dir:     absDir,
		verbose: *verbose,
		timeout: *timeout,
	}
	if err := r.setup(); err != nil {
		return fail("%v", err)
	}
	start := time.Now()
	diffs, err := r.runAll(cases)
	if err != nil {
		return fail("%v", err)
	}
	fmt.Printf("%d cases, %d commands, %d differences (%s; CPU time old %s, new %s)\n", len(cases), countCommands(cases), diffs,
		time.Since(start).Round(time.Second), r.cpu[0].Round(time.Second), r.cpu[1].Round(time.Second))
	if diffs > 0 {
		fmt.Printf("both sides of each difference are kept in %s\n", filepath.Join(absDir, "diffs"))
		keep = true
		return exitDiff
	}
	return exitSame
}

// findRoot returns the atrace2 checkout that holds the working directory,
// or "".
func findRoot() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil &&
			strings.Contains(string(b), "module github.com/atrace2/atrace2\n") {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }
func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }

// buildBoth builds revision ref (exported with git archive into a
// temporary folder) and the checkout at root, without VCS stamps so that
// both report the same version, and returns the two binaries.
func buildBoth(root, ref, dir string) (oldBin, newBin string, err error) {
	src, err := os.MkdirTemp(dir, "base-src-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(src)
	archive := exec.Command("sh", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "sh", root, ref, src)
	archive.Stderr = os.Stderr
	if err := archive.Run(); err != nil {
		return "", "", fmt.Errorf("exporting %s with git archive: %v", ref, err)
	}
	oldBin, newBin = filepath.Join(dir, "atrace2-old"), filepath.Join(dir, "atrace2-new")
	for _, b := range []struct{ src, out string }{{src, oldBin}, {root, newBin}} {
		build := exec.Command("go", "build", "-buildvcs=false", "-o", b.out, "./cmd/atrace2")
		build.Dir = b.src
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return "", "", fmt.Errorf("building %s: %v", b.src, err)
		}
	}
	return oldBin, newBin, nil
}
