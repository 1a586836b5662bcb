// Command atrace2-bench measures every atrace2 command on generated traces
// of realistic shape (40 threads, 3000 methods, depths up to 60): wall time,
// input MB/s, CPU time and the kernel's part of it (reading the input,
// writing the output, giving the process memory), peak RSS and output size,
// printed as a Markdown table.
//
//	go run ./cmd/atrace2-bench -dir /tmp/atrace2-bench -sizes 100,1000
//
// On a shared virtual machine other guests take CPU time from the runs
// (the table's "steal" line says how much): -runs N repeats each command
// and gives the median and the best. Such a machine's speed also drifts by
// a fifth or more within an hour, which no number of runs averages out: to
// compare two builds, -base OLD runs OLD next to -bin in every run, in
// alternating order, and gives the median of the pairs' ratios.
//
//	go run ./cmd/atrace2-bench -sizes 100 -runs 9 -procs 1 -base /tmp/atrace2-old
//
// The traces are written to -dir (outside the repository) once and reused.
package main

import (
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// commands are run as "atrace2 <args> -q <input>"; "-o OUT" is added for
// commands that write a file, stdout goes to a file for the others. OUT is
// in -out, by default /dev/shm (memory), so that a disk's write speed does
// not set the numbers: writing the 1.3 GB Perfetto trace of a 1 GB input to
// a disk file doubled its time here, and a pipe added half.
var commands = []struct {
	name  string
	args  []string
	toOut bool // takes -o
}{
	{"info", []string{"info"}, false},
	{"pprof", []string{"pprof"}, true},
	{"perfetto", []string{"perfetto"}, true},
	{"speedscope", []string{"speedscope"}, true},
	{"folded", []string{"folded"}, false},
	{"top", []string{"top"}, false},
}

func main() {
	dir := flag.String("dir", filepath.Join(os.TempDir(), "atrace2-bench"), "folder for the generated traces and outputs (outside the repository)")
	sizes := flag.String("sizes", "100", "trace sizes in MB, comma separated (e.g. 100,1000)")
	only := flag.String("commands", "", "comma-separated subset of commands to run (default: all)")
	bin := flag.String("bin", "", "atrace2 binary to measure (default: built from this checkout into -dir)")
	flag.StringVar(&outDir, "out", defaultOut(), "folder for the outputs (default: /dev/shm when it exists, else -dir)")
	flag.IntVar(&procs, "procs", 0, "run atrace2 with GOMAXPROCS=N (1: on one core); 0 leaves it alone")
	flag.IntVar(&runs, "runs", 1, "run each command N times: the table gives the median and the best")
	flag.BoolVar(&withGzip, "gzip", true, "also measure each regular trace's gzip copy (decompression dominates those runs)")
	flag.StringVar(&base, "base", "", "another atrace2 binary to compare -bin with: each run pairs the two, and the table adds the median ratios of their times (-bin's over -base's) and their range")
	flag.Float64Var(&quiet, "quiet", 0, "before each run (each pair with -base), wait until the machine's other work keeps fewer than this many CPUs busy, sampled over a second from /proc/stat (Linux; 0: do not wait)")
	flag.Parse()
	if runs < 1 {
		fmt.Fprintln(os.Stderr, "atrace2-bench: -runs must be at least 1")
		os.Exit(2)
	}
	if err := run(*dir, *sizes, *only, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "atrace2-bench:", err)
		os.Exit(1)
	}
}

// gnuTime reports a child's peak RSS (Debian package "time").
const gnuTime = "/usr/bin/time"

// outDir, procs, runs, base, withGzip and quiet are the -out, -procs,
// -runs, -base, -gzip and -quiet flags.
var (
	outDir   string
	procs    int
	runs     int
	base     string
	withGzip bool
	quiet    float64
)

func defaultOut() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		return "/dev/shm"
	}
	return ""
}

func run(dir, sizes, only, bin string) error {
	if _, err := os.Stat(gnuTime); err != nil {
		return fmt.Errorf("%s is needed to measure peak RSS (apt-get install time)", gnuTime)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if bin == "" {
		bin = filepath.Join(dir, "atrace2")
		build := exec.Command("go", "build", "-o", bin, "./cmd/atrace2")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building atrace2: %w", err)
		}
	}
	if base != "" {
		if _, err := os.Stat(base); err != nil {
			return fmt.Errorf("-base: %w", err)
		}
	}
	inputs, err := makeInputs(dir, sizes)
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s/%s, %d cores, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel())
	if procs > 0 {
		fmt.Printf("; atrace2 runs with GOMAXPROCS=%d", procs)
	}
	if runs > 1 {
		fmt.Printf("; %d runs of each: median wall, MB/s and CPU times, best MB/s, largest peak RSS", runs)
	}
	if quiet > 0 {
		fmt.Printf("; each run started when other work kept fewer than %g CPUs busy", quiet)
	}
	if base != "" {
		fmt.Printf("; against %s: median of the runs' ratios of wall and CPU time, and their range", base)
	}
	fmt.Printf("\n\n")
	best, bestRule := "", ""
	if runs > 1 {
		best, bestRule = " best MB/s |", "---:|"
	}
	vsBase, vsBaseRule := "", ""
	if base != "" {
		vsBase, vsBaseRule = " wall vs base | CPU vs base |", "---:|---:|"
	}
	fmt.Println("| input | command | wall | MB/s |" + best + " CPU | of it kernel | peak RSS | output |" + vsBase)
	fmt.Println("|---|---|---:|---:|" + bestRule + "---:|---:|---:|---:|" + vsBaseRule)
	before, statErr := readStat()
	for _, in := range inputs {
		for _, c := range commands {
			if only != "" && !strings.Contains(","+only+",", ","+c.name+",") {
				continue
			}
			var rs []result
			var wallRatios, cpuRatios []float64
			var err error
			for i := range runs {
				var r, b result
				waitQuiet()
				if base != "" && i%2 == 0 { // the base first in every other pair
					if b, err = measure(base, dir, in, c.args, c.toOut); err != nil {
						break
					}
				}
				if r, err = measure(bin, dir, in, c.args, c.toOut); err != nil {
					break
				}
				if base != "" && i%2 == 1 {
					if b, err = measure(base, dir, in, c.args, c.toOut); err != nil {
						break
					}
				}
				rs = append(rs, r)
				if base != "" {
					wallRatios = append(wallRatios, r.wall.Seconds()/b.wall.Seconds())
					cpuRatios = append(cpuRatios, max(r.cpu.Seconds(), 1e-6)/max(b.cpu.Seconds(), 1e-6))
				}
			}
			if err != nil {
				fmt.Printf("| %s | %s | failed: %v | | | | | | |\n", filepath.Base(in.path), c.name, err)
				continue
			}
			r := summary(rs)
			mbs := func(d time.Duration) float64 { return float64(in.bytes) / 1e6 / d.Seconds() }
			fmt.Printf("| %s | %s | %.2f s | %.0f |", filepath.Base(in.path), c.name, r.wall.Seconds(), mbs(r.wall))
			if runs > 1 {
				fmt.Printf(" %.0f |", mbs(r.best))
			}
			fmt.Printf(" %.2f s | %.2f s | %.0f MB | %.1f MB |", r.cpu.Seconds(), r.sys.Seconds(), float64(r.rssKB)/1024, float64(r.out)/1e6)
			if base != "" {
				fmt.Printf(" %s | %s |", ratioSpread(wallRatios), ratioSpread(cpuRatios))
			}
			fmt.Println()
		}
	}
	if after, err := readStat(); statErr == nil && err == nil && after.total > before.total {
		fmt.Printf("\nsteal: %.1f %% of this machine's CPU time went to other virtual machines during the runs\n",
			100*float64(after.steal-before.steal)/float64(after.total-before.total))
	}
	return nil
}

// summary gives the median wall and CPU time of runs, the best wall time,
// the largest peak RSS and the output size. The best run is the one the
// machine's other load disturbed least.
func summary(rs []result) result {
	med := func(d func(result) time.Duration) time.Duration {
		v := make([]time.Duration, len(rs))
		for i, r := range rs {
			v[i] = d(r)
		}
		return median(v)
	}
	s := result{wall: med(func(r result) time.Duration { return r.wall }),
		cpu: med(func(r result) time.Duration { return r.cpu }), sys: med(func(r result) time.Duration { return r.sys }),
		best: rs[0].wall, out: rs[0].out}
	for _, r := range rs {
		s.best = min(s.best, r.wall)
		s.rssKB = max(s.rssKB, r.rssKB)
	}
	return s
}

// ratioSpread gives the median of ratios and, of several, their range.
func ratioSpread(v []float64) string {
	m := median(v) // sorts v
	if len(v) == 1 {
		return fmt.Sprintf("%.3f", m)
	}
	return fmt.Sprintf("%.3f (%.2f–%.2f)", m, v[0], v[len(v)-1])
}

// median sorts v and returns its middle value, the mean of the middle two
// when there are an even number.
func median[T ~int64 | ~float64](v []T) T {
	slices.Sort(v)
	return (v[(len(v)-1)/2] + v[len(v)/2]) / 2
}

// waitQuiet returns once the machine's CPUs were busy with other work for
// less than -quiet CPUs' worth during a second (this process only sleeps
// meanwhile), or at once without -quiet or /proc/stat. On a shared
// machine the runs then measure what an idle one would give, not how the
// scheduler shares the CPUs among several busy processes.
func waitQuiet() {
	if quiet <= 0 {
		return
	}
	for {
		before, err := readStat()
		time.Sleep(time.Second)
		after, err2 := readStat()
		if err != nil || err2 != nil || after.total <= before.total {
			return
		}
		idle := float64(after.idle-before.idle) / float64(after.total-before.total)
		if busy := (1 - idle) * float64(after.cpus); busy < quiet {
			return
		}
	}
}

// cpuTicks are the whole machine's CPU times from /proc/stat.
type cpuTicks struct {
	total, idle, steal uint64
	cpus               int // the machine's, whatever this process's affinity
}

// readStat reads the machine's CPU times (Linux only): steal is the time
// the hypervisor gave this machine's virtual CPUs to other machines.
func readStat() (cpuTicks, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTicks{}, err
	}
	line, rest, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuTicks{}, errors.New("/proc/stat: no cpu line")
	}
	var t cpuTicks
	for i, v := range f[1:] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return cpuTicks{}, err
		}
		if i < 8 { // user nice system idle iowait irq softirq steal; guest time is in user
			t.total += n
		}
		if i == 3 || i == 4 { // idle, iowait
			t.idle += n
		}
		if i == 7 {
			t.steal = n
		}
	}
	for _, l := range strings.Split(rest, "\n") {
		if len(l) > 3 && strings.HasPrefix(l, "cpu") && l[3] >= '0' && l[3] <= '9' {
			t.cpus++
		}
	}
	return t, nil
}

type input struct {
	path  string
	bytes int64 // decompressed size, for MB/s
}

// makeInputs writes, per size, a regular v3 trace and (with -gzip) its gzip
// copy, and for sizes that fit in memory comfortably an interleaved v3
// trace (LargeOptions.Interleaved) and a streaming trace.
func makeInputs(dir, sizes string) ([]input, error) {
	var ins []input
	for _, s := range strings.Split(sizes, ",") {
		mb, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || mb <= 0 {
			return nil, fmt.Errorf("-sizes: %q is not a size in MB", s)
		}
		o := tracegen.LargeOptions{Bytes: mb << 20, Seed: 1}
		regular := filepath.Join(dir, fmt.Sprintf("v3-%dMB.trace", mb))
		if err := ensure(regular, func(w io.Writer) error { return tracegen.WriteLarge(w, o) }); err != nil {
			return nil, err
		}
		st, _ := os.Stat(regular)
		ins = append(ins, input{regular, st.Size()})
		if withGzip {
			gz := regular + ".gz"
			if err := ensure(gz, func(w io.Writer) error { return gzipFile(w, regular) }); err != nil {
				return nil, err
			}
			ins = append(ins, input{gz, st.Size()})
		}
		if mb <= 200 {
			// The same kind of records with the threads taking turns of
			// mostly one record: the thread changes on nearly every record.
			inter := filepath.Join(dir, fmt.Sprintf("interleaved-%dMB.trace", mb))
			il := o
			il.Interleaved = true
			if err := ensure(inter, func(w io.Writer) error { return tracegen.WriteLarge(w, il) }); err != nil {
				return nil, err
			}
			ist, _ := os.Stat(inter)
			ins = append(ins, input{inter, ist.Size()})
			streaming := filepath.Join(dir, fmt.Sprintf("streaming-%dMB.trace", mb))
			err := ensure(streaming, func(w io.Writer) error {
				_, err := w.Write(tracegen.Large(o).Streaming(tracegen.StreamOptions{}))
				return err
			})
			if err != nil {
				return nil, err
			}
			st, _ := os.Stat(streaming)
			ins = append(ins, input{streaming, st.Size()})
		}
	}
	return ins, nil
}

// ensure writes path with write unless it exists already.
func ensure(path string, write func(io.Writer) error) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	fmt.Fprintf(os.Stderr, "writing %s\n", path)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := errors.Join(write(f), f.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

func gzipFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if _, err := io.Copy(zw, f); err != nil {
		return err
	}
	return zw.Close()
}

type result struct {
	wall  time.Duration
	best  time.Duration // the shortest wall time of several runs
	cpu   time.Duration // user + system
	sys   time.Duration // system: the kernel's work for the process
	rssKB int64
	out   int64
}

// measure runs one command under GNU time for its peak RSS. (The kernel's
// rusage of a child can include pages of this process from before the
// exec, and this process holds generated traces.)
func measure(bin, dir string, in input, args []string, toOut bool) (result, error) {
	if outDir == "" {
		outDir = dir
	}
	out := filepath.Join(outDir, "atrace2-bench.out")
	os.Remove(out)
	defer os.Remove(out)
	args = append(append([]string{}, args...), "-q")
	cmd := exec.Command(bin)
	if toOut {
		args = append(args, "-o", out)
	} else {
		f, err := os.Create(out)
		if err != nil {
			return result{}, err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	if procs > 0 {
		cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	}
	rss := filepath.Join(dir, "rss.txt")
	cmd.Path = gnuTime
	cmd.Args = append([]string{gnuTime, "-f", "%M", "-o", rss, bin}, append(args, in.path)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	r := result{wall: time.Since(start)}
	// CPU times from the kernel's accounting of GNU time's process, which
	// includes the command it waited for, to the microsecond (GNU time
	// prints hundredths, too coarse for runs of a tenth of a second).
	r.sys = cmd.ProcessState.SystemTime()
	r.cpu = cmd.ProcessState.UserTime() + r.sys
	if b, err := os.ReadFile(rss); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			r.rssKB, _ = strconv.ParseInt(f[0], 10, 64)
		}
	}
	if st, err := os.Stat(out); err == nil {
		r.out = st.Size()
	}
	return r, nil
}

// cpuModel names the processor, for the table's caption.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
