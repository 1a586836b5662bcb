package samples

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

// This file parses single lines of hprof text. The layouts are those of
// OpenJDK's hprof_io.c (io_write_thread_start, io_write_trace_header,
// io_write_trace_elem, io_write_cpu_samples_*) and of libcore's
// AsciiHprofWriter with HprofData.ThreadEvent.toString and
// StackTraceElement.toString.

// sniffJVM matches the text file header "JAVA PROFILE 1.0.1, created …",
// and not the binary one, whose version string ends with a NUL.
func sniffJVM(head []byte) bool {
	rest, ok := bytes.CutPrefix(head, []byte("JAVA PROFILE "))
	if !ok {
		return false
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	return bytes.IndexByte(line, 0) < 0 && bytes.Contains(line, []byte(", created"))
}

// sniffHprofBody matches a file starting with a line only hprof text
// writes: what AsciiHprofWriter's output (which has no header) starts with.
func sniffHprofBody(head []byte) bool {
	for _, p := range []string{"THREAD START (obj=", "THREAD END (id = ", "CPU SAMPLES BEGIN (total = ", "CPU TIME (ms) BEGIN (total = "} {
		if bytes.HasPrefix(head, []byte(p)) {
			return true
		}
	}
	rest, ok := bytes.CutPrefix(head, []byte("TRACE "))
	return ok && len(rest) > 0 && rest[0] >= '0' && rest[0] <= '9'
}

// threadStart parses
//
//	THREAD START (obj=<hex or decimal>, id = <n>, name="<name>", group="<group>")
//
// Names are printed unquoted, so the name ends at the last `", group="`.
func threadStart(s string) (Thread, error) {
	body, ok := strings.CutPrefix(s, "THREAD START (obj=")
	if !ok || !strings.HasSuffix(body, `")`) {
		return Thread{}, errors.New(`expected THREAD START (obj=<id>, id = <n>, name="<name>", group="<group>")`)
	}
	body = body[:len(body)-2]
	obj, body, ok1 := strings.Cut(body, ", id = ")
	id, body, ok2 := strings.Cut(body, `, name="`)
	g := strings.LastIndex(body, `", group="`)
	if !ok1 || !ok2 || g < 0 || !isWord(obj) {
		return Thread{}, errors.New(`expected THREAD START (obj=<id>, id = <n>, name="<name>", group="<group>")`)
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return Thread{}, errors.New("THREAD START: thread id " + strconv.Quote(id) + " is not a number")
	}
	return Thread{ID: n, Name: body[:g], Group: body[g+len(`", group="`):]}, nil
}

// isWord accepts the obj= value: hex for the JVM, signed decimal for Dalvik.
func isWord(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789abcdefABCDEF") == ""
}

// threadEnd parses "THREAD END (id = <n>)".
func threadEnd(s string) error {
	id, ok := strings.CutPrefix(s, "THREAD END (id = ")
	if id, ok2 := strings.CutSuffix(id, ")"); ok && ok2 {
		if _, err := strconv.ParseInt(id, 10, 64); err == nil {
			return nil
		}
	}
	return errors.New("expected THREAD END (id = <n>)")
}

// traceHeader parses "TRACE <n>:", optionally followed by " (thread=<n>)"
// and " (from <phase> phase of JVM)".
func traceHeader(s string) (id, thread int64, hasThread bool, err error) {
	bad := errors.New(`expected TRACE <n>: [(thread=<n>)] [(from <phase> phase of JVM)]`)
	num, rest, ok := strings.Cut(strings.TrimPrefix(s, "TRACE "), ":")
	if id, err = strconv.ParseInt(num, 10, 64); !ok || err != nil {
		return 0, 0, false, bad
	}
	rest = strings.TrimSpace(rest)
	if t, ok := strings.CutPrefix(rest, "(thread="); ok {
		num, rest, ok = strings.Cut(t, ")")
		if thread, err = strconv.ParseInt(num, 10, 64); !ok || err != nil {
			return 0, 0, false, bad
		}
		hasThread, rest = true, strings.TrimSpace(rest)
	}
	if rest != "" && !(strings.HasPrefix(rest, "(from ") && strings.HasSuffix(rest, " phase of JVM)")) {
		return 0, 0, false, bad
	}
	return id, thread, hasThread, nil
}

// parseFrame parses one frame line (without its indentation) in either
// writer's syntax:
//
//	hprof_io.c:        java.lang.Long.parseLong(Long.java:450)
//	                   a.B.c(B.java:Unknown line) (:Compiled method, :Native method)
//	                   Unknown_class.<Unknown Method>(<Unknown Source>:Unknown line)
//	StackTraceElement: a.B.c(B.java:12)  a.B.c(B.java)  a.B.c(Unknown Source)
//	                   java.lang.Object.wait(Native Method)
func parseFrame(s string) (Frame, error) {
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return Frame{}, errors.New("expected a frame <class>.<method>(<source>:<line>), found " + strconv.Quote(clip(s)))
	}
	// hprof_io.c prints class names dotted (signature_to_name); a slash
	// can only come from an older writer, so it is a package separator.
	f := Frame{Name: strings.ReplaceAll(s[:open], "/", ".")}
	if dot := strings.LastIndexByte(f.Name, '.'); dot >= 0 {
		f.Class, f.Method = f.Name[:dot], f.Name[dot+1:]
	} else {
		f.Method = f.Name
	}
	loc := s[open+1 : len(s)-1]
	switch loc {
	case "Native Method":
		f.Native = true
		return f, nil
	case "Unknown Source", "<Unknown Source>":
		return f, nil
	}
	f.File = loc
	if file, line, ok := cutLast(loc, ':'); ok {
		switch line {
		case "Unknown line", "Compiled method":
			f.File = file
		case "Native method":
			f.File, f.Native = file, true
		default:
			if n, err := strconv.Atoi(line); err == nil {
				// hprof prints -1..-3 as words; other negative numbers mean no line too.
				f.File, f.Line, f.HasLine = file, max(n, 0), n >= 0
			}
		}
	}
	if f.File == "<Unknown Source>" {
		f.File = ""
	}
	return f, nil
}

func cutLast(s string, sep byte) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// sectionTotal parses the "(total = <n>)" after a CPU section's BEGIN and
// returns it with the date that follows.
func sectionTotal(rest string) (total int64, date string, err error) {
	num, date, ok := strings.Cut(strings.TrimPrefix(rest, " (total = "), ")")
	if total, err = strconv.ParseInt(num, 10, 64); !ok || err != nil || total < 0 {
		return 0, "", errors.New("expected (total = <n>) after BEGIN")
	}
	return total, strings.TrimSpace(date), nil
}

// row is one line of a CPU SAMPLES or CPU TIME section.
type row struct {
	line    int
	trace   int64
	count   int64
	percent float64 // self %, used for cpu=times
	total   int64   // the section's total (ms for cpu=times)
}

// parseRow parses "rank self% accum% count trace method": the fields are
// separated by spaces in both writers, the method is ignored (it repeats
// the trace's first frame) and a decimal comma is accepted, since
// AsciiHprofWriter formats with the device's locale.
func parseRow(s string) (row, error) {
	f := strings.Fields(s)
	if len(f) < 5 || !strings.HasSuffix(f[1], "%") || !strings.HasSuffix(f[2], "%") {
		return row{}, errors.New("expected a row <rank> <self>% <accum>% <count> <trace> <method>")
	}
	pct, err1 := strconv.ParseFloat(strings.Replace(strings.TrimSuffix(f[1], "%"), ",", ".", 1), 64)
	_, err2 := strconv.ParseUint(f[0], 10, 64)
	count, err3 := strconv.ParseInt(f[3], 10, 64)
	trace, err4 := strconv.ParseInt(f[4], 10, 64)
	// A percentage is at most 100; the slack allows for odd rounding, and
	// the comparison also refuses NaN.
	if err := errors.Join(err1, err2, err3, err4); err != nil || count < 0 || !(pct >= 0 && pct <= 1000) {
		return row{}, errors.New("expected a row <rank> <self>% <accum>% <count> <trace> <method>, found " + strconv.Quote(clip(s)))
	}
	return row{percent: pct, count: count, trace: trace}, nil
}

// clip shortens text quoted in an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
