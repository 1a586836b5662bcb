package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The report commands end to end: parse, convert, aggregate, print.
func TestReportCommands(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"top-sample.txt", []string{"top", "-q", "-n", "15", sample}},
		{"top-sample-cpu.txt", []string{"top", "-q", "--clock", "cpu", "--sort", "incl", "-n", "10", sample}},
		{"calls-sample.txt", []string{"calls", "-q", sample, `MainActivity\.onCreate$`}},
		{"diff-sample.txt", []string{"diff", "-q", "--threshold", "0", sample, sample}},
	} {
		code, out, errOut := runCLI(t, nil, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		golden(t, c.golden, out)
	}
}

func TestTopJSONMatchesText(t *testing.T) {
	code, out, _ := runCLI(t, nil, "top", "-q", "--format", "json", "-n", "3", sample)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("top --format json is not JSON: %v\n%s", err, out)
	}
	_, text, _ := runCLI(t, nil, "top", "-q", "--wide", "-n", "3", sample)
	// The busiest method by exclusive wall time heads both.
	first := firstMethod(t, doc)
	if !strings.Contains(text, first) {
		t.Errorf("text top does not name %q:\n%s", first, text)
	}
}

// firstMethod digs the first row's method name out of the JSON report.
func firstMethod(t *testing.T, doc map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(doc)
	s := string(b)
	i := strings.Index(s, `"method":"`)
	if i < 0 {
		t.Fatalf("no method in %s", s)
	}
	s = s[i+len(`"method":"`):]
	return s[:strings.IndexByte(s, '"')]
}

func TestReportUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"calls", sample, "("},
		{"diff", sample},
		{"top", "--sort", "size", sample},
	} {
		if code, _, errOut := runCLI(t, nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d; stderr %s", args, code, exitUsage, errOut)
		}
	}
}
