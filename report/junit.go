package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"

	"github.com/atrace2/atrace2/gate"
)

// JUnit XML (docs/outputs.md §5.1): the form Jenkins' junit-10.xsd and
// the common JUnit.xsd accept, and GitHub, GitLab and Azure test reports
// read: <testsuites> holds one <testsuite> per rule, which holds one
// <testcase> per subject the rule checked. A regression is a <failure>; an
// inconclusive result is <skipped> with a message, or a <failure> with
// --inconclusive=fail; ok and improved pass.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
	SystemOut  string           `xml:"system-out,omitempty"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the gate's verdicts as JUnit XML: one test case per
// (rule, subject) checked. Without rules it writes an empty test suite
// list.
func (r *DiffReport) WriteJUnit(w io.Writer) error {
	doc := junitSuites{Name: "atrace2 diff " + r.Old + " → " + r.New, Time: "0"}
	if g := r.Gate; g != nil {
		suites := make(map[string]*junitSuite)
		for _, rule := range g.Rules {
			if suites[rule] == nil {
				doc.Suites = append(doc.Suites, junitSuite{Name: rule, Time: "0", Properties: gateProperties(g)})
				suites[rule] = nil // filled below, once the slice stops growing
			}
		}
		for i := range doc.Suites {
			suites[doc.Suites[i].Name] = &doc.Suites[i]
		}
		for _, u := range g.Undecided {
			if s := suites[u.Rule]; s != nil {
				s.SystemOut = UndecidedLine(u, g)
			}
		}
		for _, v := range g.Verdicts {
			s := suites[v.Rule]
			if s == nil {
				continue
			}
			s.add(verdictCase(v.Subject+" ("+metricWords(v)+")", "atrace2.diff."+v.Kind, v, g))
		}
		for _, s := range doc.Suites {
			doc.Tests += s.Tests
			doc.Failures += s.Failures
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// verdictCase is a verdict as a test case: a failure when it regressed
// (or was inconclusive under --inconclusive fail), skipped when
// inconclusive, else passed; its message is verdictMessage.
func verdictCase(name, class string, v Verdict, g *GateReport) junitCase {
	c := junitCase{Name: name, Classname: class, Time: "0"}
	msg := verdictMessage(v, g.Adjust)
	switch gate.Verdict(v.Verdict) {
	case gate.Regressed:
		c.Failure = &junitMessage{Message: msg, Type: v.Verdict, Text: msg}
	case gate.Inconclusive:
		if g.InconclusiveFails {
			c.Failure = &junitMessage{Message: msg, Type: v.Verdict, Text: msg}
		} else {
			c.Skipped = &junitMessage{Message: msg}
		}
	}
	return c
}

// gateProperties name the gate's statistics in each rule's test suite:
// alpha and the adjustment ("bh", "holm" or "none").
func gateProperties(g *GateReport) *junitProperties {
	return &junitProperties{Property: []junitProperty{
		{Name: "alpha", Value: strconv.FormatFloat(g.Alpha, 'g', -1, 64)},
		{Name: "adjust", Value: g.Adjust.String()},
	}}
}

// verdictMessage describes a verdict in one line: "regressed: incl wall
// 12 ms → 15 ms (+3 ms, +25.0%), p 0.046 (adjusted: Benjamini–Hochberg),
// threshold +10%".
func verdictMessage(v Verdict, a gate.Adjustment) string {
	o, n, d := verdictValues(v)
	s := fmt.Sprintf("%s: %s %s → %s (%s, %s)", v.Verdict, metricWords(v), o, n, d, signedPercent(v.Pct))
	if v.PAdjusted != nil {
		s += ", p " + strconv.FormatFloat(*v.PAdjusted, 'g', 4, 64)
		if a != gate.None {
			s += " (adjusted: " + a.Name() + ")"
		}
	} else {
		s += fmt.Sprintf(", no p-value (fewer than %d runs per side)", MinRunsForP)
	}
	return s + ", threshold " + v.Threshold
}

// verdictValues are a verdict's old and new medians and their change
// ("12 ms", "15 ms", "+3 ms"); a benchmark metric's in its own unit.
func verdictValues(v Verdict) (old, new, delta string) {
	if v.Metric == "metric" {
		return metricf(v.Old), metricf(v.New), signedMetricf(v.Delta)
	}
	c := v.Clock
	if v.Metric == "calls" {
		c = Samples.String()
	}
	return valuef(c, v.Old), valuef(c, v.New), signedValuef(c, v.Delta)
}
