package benchdata

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/internal/stats"
)

// File is one benchmarkData.json: the results of one run of a benchmark
// suite on one device.
type File struct {
	Path       string // as given to Open; "" for Read
	Context    Context
	Benchmarks []Benchmark
}

// Dir is the folder the file's profiler outputs are named relative to.
func (f *File) Dir() string { return filepath.Dir(f.Path) }

// Context is what the file says of the device and the run.
type Context struct {
	Brand, Device, Model, Fingerprint, BuildType string
	SDK                                          int
	CPUCoreCount                                 int
	CPUMaxFreqHz                                 int64
	// CPULocked says the CPU clocks were locked (root and
	// ./gradlew lockClocks); nil when the file does not say.
	CPULocked *bool
	// SustainedPerformanceMode is the sustainedPerformanceModeEnabled
	// flag; nil when absent.
	SustainedPerformanceMode *bool
	ArtMainlineVersion       int64
	CompilationMode          string // "speed", "verify", …
}

// Benchmark is one test's results in one file.
type Benchmark struct {
	Class  string // className
	Name   string // the test's name, its params in brackets
	Params []Param
	// Metrics and Sampled are sorted by name.
	Metrics []Metric
	Sampled []SampledMetric
	// Iterations and the thermal throttling sleep; -1 when absent.
	WarmupIterations, RepeatIterations int
	ThermalThrottleSleepSeconds        int64
	Outputs                            []ProfilerOutput
	// Offset is the byte offset of the benchmark's object in the file,
	// for messages.
	Offset int64
}

// Param is one parameter of a parameterized test.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Metric is a metric with one value per repeat of the benchmark.
type Metric struct {
	Name     string
	Min, Max float64
	// Median is the writer's median of Runs (the mean of the two middle
	// values for an even count); Runs may be empty in hand-written files.
	Median float64
	Runs   []float64
}

// SampledMetric is a metric with several values per repeat (one per
// frame), and the writer's percentiles of all of them.
type SampledMetric struct {
	Name               string
	P50, P90, P95, P99 float64
	Runs               [][]float64
}

// Values is every value of every repeat, in order.
func (s *SampledMetric) Values() []float64 {
	var out []float64
	for _, r := range s.Runs {
		out = append(out, r...)
	}
	return out
}

// ProfilerOutput is a file a benchmark's profiler wrote.
type ProfilerOutput struct {
	Type     string // MethodTrace, StackSamplingTrace, PerfettoTrace, or another
	Label    string
	Filename string // relative to the File's folder
}

// Types of profiler output.
const (
	MethodTrace        = "MethodTrace"        // an ART method trace (.trace)
	StackSamplingTrace = "StackSamplingTrace" // simpleperf's protobuf, or an ART sampled trace
	PerfettoTrace      = "PerfettoTrace"      // a Perfetto system trace
)

// FormatError reports malformed input at a byte offset, in the style of
// debug/macho.FormatError.
type FormatError struct {
	Off int64  // byte offset where the problem was found
	Msg string // what was expected or found, lower case
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("offset %d (%#x): %s", e.Off, e.Off, e.Msg)
}

// ErrNotBenchmarkData is wrapped by the error for JSON that is not a
// benchmark result at all (no "benchmarks" array).
var ErrNotBenchmarkData = errors.New("not a Jetpack Benchmark result (benchmarkData.json)")

// MaxSize is the largest file Read takes: real files are kilobytes to a
// few megabytes (sampled metrics hold one value per frame).
const MaxSize = 256 << 20

// Open reads the file at path; errors name it.
func Open(name string) (*File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bf, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	bf.Path = name
	return bf, nil
}

// Read reads a benchmarkData.json.
func Read(r io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, &FormatError{MaxSize, fmt.Sprintf("more than %d MiB: not a benchmark result", MaxSize>>20)}
	}
	return parse(data)
}

// The JSON shapes. Numbers are float64 or int64 as the writer writes them;
// pointers tell an absent key from a zero.
type (
	contextJSON struct {
		Build struct {
			Brand       string `json:"brand"`
			Device      string `json:"device"`
			Fingerprint string `json:"fingerprint"`
			Model       string `json:"model"`
			Type        string `json:"type"`
			Version     struct {
				SDK int `json:"sdk"`
			} `json:"version"`
		} `json:"build"`
		CPUCoreCount                    int    `json:"cpuCoreCount"`
		CPULocked                       *bool  `json:"cpuLocked"`
		CPUMaxFreqHz                    int64  `json:"cpuMaxFreqHz"`
		SustainedPerformanceModeEnabled *bool  `json:"sustainedPerformanceModeEnabled"`
		ArtMainlineVersion              int64  `json:"artMainlineVersion"`
		CompilationMode                 string `json:"compilationMode"`
	}
	benchmarkJSON struct {
		Name                        string                 `json:"name"`
		Params                      map[string]string      `json:"params"`
		ClassName                   string                 `json:"className"`
		Metrics                     map[string]metricJSON  `json:"metrics"`
		SampledMetrics              map[string]sampledJSON `json:"sampledMetrics"`
		WarmupIterations            *int                   `json:"warmupIterations"`
		RepeatIterations            *int                   `json:"repeatIterations"`
		ThermalThrottleSleepSeconds *int64                 `json:"thermalThrottleSleepSeconds"`
		ProfilerOutputs             []ProfilerOutputJSON   `json:"profilerOutputs"`
	}
	metricJSON struct {
		Minimum float64   `json:"minimum"`
		Maximum float64   `json:"maximum"`
		Median  *float64  `json:"median"`
		Runs    []float64 `json:"runs"`
	}
	sampledJSON struct {
		P50  float64     `json:"P50"`
		P90  float64     `json:"P90"`
		P95  float64     `json:"P95"`
		P99  float64     `json:"P99"`
		Runs [][]float64 `json:"runs"`
	}
)

// ProfilerOutputJSON is a profilerOutputs entry as written.
type ProfilerOutputJSON struct {
	Type     string `json:"type"`
	Label    string `json:"label"`
	Filename string `json:"filename"`
}

// parse decodes the top-level object key by key, so that each benchmark's
// offset is known for messages.
func parse(data []byte) (*File, error) {
	// The syntax first, in one pass over the whole file: Unmarshal's
	// syntax errors count from the file's start (a Decoder's count from
	// its buffer), and the walk below then meets none.
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &FormatError{0, "an empty file: expected a JSON object ({)"}
	}
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &FormatError{max(se.Offset-1, 0), "invalid JSON: " + se.Error()}
		}
		return nil, &FormatError{0, "invalid JSON: " + err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := expectDelim(dec, data, '{', "a JSON object ({)"); err != nil {
		return nil, err
	}
	f := &File{}
	sawBenchmarks := false
	for dec.More() {
		at := valueStart(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(err, at, "")
		}
		key, _ := tok.(string)
		switch key {
		case "context":
			at := valueStart(data, dec.InputOffset())
			var c contextJSON
			if err := dec.Decode(&c); err != nil {
				return nil, typeError(err, data, at, "context")
			}
			f.Context = c.context()
		case "benchmarks":
			sawBenchmarks = true
			if err := expectDelim(dec, data, '[', `an array of benchmarks after "benchmarks"`); err != nil {
				return nil, err
			}
			for i := 0; dec.More(); i++ {
				at := valueStart(data, dec.InputOffset())
				var b benchmarkJSON
				if err := dec.Decode(&b); err != nil {
					return nil, typeError(err, data, at, fmt.Sprintf("benchmarks[%d]", i))
				}
				bm, err := b.benchmark(at, i)
				if err != nil {
					return nil, err
				}
				f.Benchmarks = append(f.Benchmarks, bm)
			}
			if err := expectDelim(dec, data, ']', "the end of the benchmarks (])"); err != nil {
				return nil, err
			}
		default:
			at := valueStart(data, dec.InputOffset())
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, jsonError(err, at, key)
			}
		}
	}
	if err := expectDelim(dec, data, '}', "the end of the object (})"); err != nil {
		return nil, err
	}
	if at := valueStart(data, dec.InputOffset()); at < int64(len(data)) {
		return nil, &FormatError{at, "expected the end of the file after the JSON object"}
	}
	if !sawBenchmarks {
		return nil, fmt.Errorf("%w: %w", &FormatError{0, `expected a "benchmarks" array`}, ErrNotBenchmarkData)
	}
	return f, nil
}

// expectDelim reads the next token, which must be d.
func expectDelim(dec *json.Decoder, data []byte, d json.Delim, what string) error {
	at := valueStart(data, dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return &FormatError{at, "expected " + what + ", found the end of the file"}
		}
		return jsonError(err, at, "")
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return &FormatError{at, fmt.Sprintf("expected %s, found %s", what, describe(tok))}
	}
	return nil
}

// typeError is jsonError for a value decoded from offset at, its type
// error's offset made absolute and moved to the wrong value's start.
func typeError(err error, data []byte, at int64, where string) error {
	e := jsonError(err, at, where)
	var fe *FormatError
	var te *json.UnmarshalTypeError
	if errors.As(e, &fe) && errors.As(err, &te) {
		fe.Off = valueBefore(data, at+te.Offset)
	}
	return e
}

// valueBefore returns the start of the string, number or literal that
// ends at end; end itself for anything else (an object or an array).
func valueBefore(data []byte, end int64) int64 {
	if end <= 0 || end > int64(len(data)) {
		return end
	}
	i := end - 1
	if data[i] == '"' {
		for i--; i >= 0; i-- {
			if data[i] == '"' {
				bs := 0 // an escaped quote is preceded by an odd run of '\'
				for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
					bs++
				}
				if bs%2 == 0 {
					return i
				}
			}
		}
		return end
	}
	for i >= 0 && strings.IndexByte("0123456789+-.eEtruefalsn", data[i]) >= 0 {
		i--
	}
	return i + 1
}

// valueStart skips the white space and the separator before the value at
// off, so that a message points at the value itself.
func valueStart(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

// jsonError turns encoding/json's errors into FormatErrors at absolute
// offsets: a type error counts from the start at of the value decoded, to
// the end of the wrong value, whose start valueBefore finds. (Its Field
// leaves out map keys: "metrics.runs" for the runs of any metric.)
func jsonError(err error, at int64, where string) error {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		field := where
		if te.Field != "" {
			field = strings.TrimPrefix(where+"."+te.Field, ".")
		}
		return &FormatError{te.Offset, fmt.Sprintf("%s: expected %s, found a JSON %s", field, typeWords(te.Type.String()), te.Value)}
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return &FormatError{at, "unexpected end of the file inside " + cmpOr(where, "the JSON object")}
	}
	return &FormatError{at, err.Error()}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// typeWords names a Go type of the JSON shapes as JSON would.
func typeWords(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool" || t == "*bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "map[") || strings.Contains(t, "JSON"):
		return "an object"
	case strings.Contains(t, "int"):
		return "an integer"
	}
	return "a number"
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return "'" + v.String() + "'"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

func (c *contextJSON) context() Context {
	b := &c.Build
	return Context{Brand: b.Brand, Device: b.Device, Model: b.Model, Fingerprint: b.Fingerprint, BuildType: b.Type,
		SDK: b.Version.SDK, CPUCoreCount: c.CPUCoreCount, CPUMaxFreqHz: c.CPUMaxFreqHz, CPULocked: c.CPULocked,
		SustainedPerformanceMode: c.SustainedPerformanceModeEnabled, ArtMainlineVersion: c.ArtMainlineVersion,
		CompilationMode: c.CompilationMode}
}

// benchmark checks one decoded benchmark, i-th of the file, at offset at.
func (b *benchmarkJSON) benchmark(at int64, i int) (Benchmark, error) {
	bad := func(format string, args ...any) (Benchmark, error) {
		return Benchmark{}, &FormatError{at, fmt.Sprintf("benchmarks[%d]: ", i) + fmt.Sprintf(format, args...)}
	}
	if b.ClassName == "" {
		return bad(`expected a "className"`)
	}
	if b.Name == "" {
		return bad(`expected a "name"`)
	}
	bm := Benchmark{Class: b.ClassName, Name: b.Name, Offset: at, WarmupIterations: -1, RepeatIterations: -1, ThermalThrottleSleepSeconds: -1}
	bm.Params = nameParams(b.Name)
	if bm.Params == nil && !strings.Contains(b.Name, "[") {
		for _, k := range sortedKeys(b.Params) {
			bm.Params = append(bm.Params, Param{k, b.Params[k]})
		}
	}
	for _, name := range sortedKeys(b.Metrics) {
		m := b.Metrics[name]
		if name == "" {
			return bad("a metric without a name")
		}
		med := 0.0
		switch {
		case m.Median != nil:
			med = *m.Median
		case len(m.Runs) > 0:
			med = stats.Median(m.Runs)
		default:
			return bad("metric %s: expected a median or runs", name)
		}
		bm.Metrics = append(bm.Metrics, Metric{Name: name, Min: m.Minimum, Max: m.Maximum, Median: med, Runs: m.Runs})
	}
	for _, name := range sortedKeys(b.SampledMetrics) {
		s := b.SampledMetrics[name]
		if name == "" {
			return bad("a sampled metric without a name")
		}
		bm.Sampled = append(bm.Sampled, SampledMetric{Name: name, P50: s.P50, P90: s.P90, P95: s.P95, P99: s.P99, Runs: s.Runs})
	}
	if b.WarmupIterations != nil {
		bm.WarmupIterations = *b.WarmupIterations
	}
	if b.RepeatIterations != nil {
		bm.RepeatIterations = *b.RepeatIterations
	}
	if b.ThermalThrottleSleepSeconds != nil {
		bm.ThermalThrottleSleepSeconds = *b.ThermalThrottleSleepSeconds
	}
	for j, o := range b.ProfilerOutputs {
		if o.Type == "" || o.Filename == "" {
			return bad("profilerOutputs[%d]: expected a type and a filename", j)
		}
		if !localName(o.Filename) {
			return bad("profilerOutputs[%d]: filename %q: expected a path inside the result's folder", j, o.Filename)
		}
		bm.Outputs = append(bm.Outputs, ProfilerOutput(o))
	}
	return bm, nil
}

// localName says a profiler output's file name stays inside the JSON
// file's folder: relative, without "..", on every system.
func localName(name string) bool {
	slash := strings.ReplaceAll(name, `\`, "/")
	if !path.IsAbs(slash) && filepath.IsLocal(slash) && !strings.Contains(slash, ":") {
		for _, part := range strings.Split(slash, "/") {
			if part == ".." {
				return false
			}
		}
		return true
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
