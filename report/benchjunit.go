package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/benchdata"
)

// WriteJUnit writes the gate's verdicts grouped by benchmark: a
// <testsuite> per benchmark (its Key), a <testcase> per rule and subject
// checked in it ("RULE: SUBJECT (METRIC)", classname the benchmark's
// class), failures and skips as for a diff of runs (WriteJUnit of
// DiffReport); its system-out holds its notes and the lines of the rules
// that cannot decide. A benchmark of one side is a suite with one skipped
// case. A last suite "context" has a case per context check
// (benchdata.Checks): a failure with --strict when it found something,
// else skipped with the finding, or passed.
func (r *BenchReport) WriteJUnit(w io.Writer) error {
	doc := junitSuites{Name: "atrace2 diff " + filesWords(r.Old, "old") + " → " + filesWords(r.New, "new"), Time: "0"}
	g := r.Gate
	for _, b := range r.Benchmarks {
		s := junitSuite{Name: b.Benchmark, Time: "0"}
		if b.Status != StatusBoth {
			msg := "only in the " + strings.TrimSuffix(b.Status, "-only") + " results"
			s.Cases = append(s.Cases, junitCase{Name: "present on both sides", Classname: b.Class, Time: "0", Skipped: &junitMessage{Message: msg}})
			s.Tests, s.Skipped = 1, 1
			doc.Suites = append(doc.Suites, s)
			continue
		}
		notes := slices.Clone(b.Notes)
		if g != nil {
			s.Properties = gateProperties(g)
			rules := map[string]bool{}
			for _, v := range r.verdictsOf(b.Benchmark) {
				rules[v.Rule] = true
				s.add(verdictCase(v.Rule+": "+v.Subject+" ("+metricWords(v)+")", b.Class, v, g))
			}
			for _, u := range g.Undecided {
				if rules[u.Rule] {
					notes = append(notes, UndecidedLine(u, g))
				}
			}
		}
		s.SystemOut = strings.Join(notes, "\n")
		doc.Suites = append(doc.Suites, s)
	}
	ctx := junitSuite{Name: "context", Time: "0"}
	for _, check := range benchdata.Checks {
		c := junitCase{Name: check, Classname: "atrace2.diff.context", Time: "0"}
		var msgs []string
		for _, f := range r.Context {
			if f.Check == check {
				msgs = append(msgs, f.Message)
			}
		}
		if len(msgs) > 0 {
			msg := strings.Join(msgs, "; ")
			if r.Strict {
				c.Failure = &junitMessage{Message: msg, Type: "context", Text: msg}
			} else {
				c.Skipped = &junitMessage{Message: "warning: " + msg}
			}
		}
		ctx.add(c)
	}
	doc.Suites = append(doc.Suites, ctx)
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	return writeJUnitDoc(w, doc)
}

// add appends a case and counts it.
func (s *junitSuite) add(c junitCase) {
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
	if c.Skipped != nil {
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

// writeJUnitDoc writes the XML declaration and the document.
func writeJUnitDoc(w io.Writer, doc junitSuites) error {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	b.WriteString("\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}
