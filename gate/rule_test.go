package gate

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseRule(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, tc := range []struct {
		in      string
		pattern string // "" for none
		phase   string
		metric  string
		clock   string
		thr     Threshold
	}{
		{"incl>+2ms", "", "", "incl", "", Threshold{Kind: Duration, Nanos: 2 * ms}},
		{"excl.cpu>2ms", "", "", "excl", "cpu", Threshold{Kind: Duration, Nanos: 2 * ms}},
		{"incl.offcpu>+500us", "", "", "incl", "offcpu", Threshold{Kind: Duration, Nanos: 500_000}},
		{"excl>+500µs", "", "", "excl", "", Threshold{Kind: Duration, Nanos: 500_000}},
		{"incl.wall>+1.5s", "", "", "incl", "wall", Threshold{Kind: Duration, Nanos: 1500 * ms}},
		{"incl>+1m30s", "", "", "incl", "", Threshold{Kind: Duration, Nanos: 90_000 * ms}},
		{"incl>0s", "", "", "incl", "", Threshold{Kind: Duration}},
		{"incl>+10%", "", "", "incl", "", Threshold{Kind: Percent, Percent: 10}},
		{"excl.cpu>2.5%", "", "", "excl", "cpu", Threshold{Kind: Percent, Percent: 2.5}},
		{"calls>+5", "", "", "calls", "", Threshold{Kind: Count, Count: 5}},
		{"calls>0", "", "", "calls", "", Threshold{Kind: Count}},
		{"calls>+10%", "", "", "calls", "", Threshold{Kind: Percent, Percent: 10}},
		{`com\.example\..*:incl.cpu>+10%`, `com\.example\..*`, "", "incl", "cpu", Threshold{Kind: Percent, Percent: 10}},
		// The pattern ends at the last ':' before the metric and may
		// hold ':' and '>' itself; the threshold follows the last '>'.
		{`(?i:foo):excl>+1ms`, `(?i:foo)`, "", "excl", "", Threshold{Kind: Duration, Nanos: ms}},
		{`a>b:incl>+1ms`, `a>b`, "", "incl", "", Threshold{Kind: Duration, Nanos: ms}},
		{`Foo\.bar\(I\)V:calls>+0`, `Foo\.bar\(I\)V`, "", "calls", "", Threshold{Kind: Count}},
		{" incl > +2ms ", "", "", "incl", "", Threshold{Kind: Duration, Nanos: 2 * ms}},
		{"phase:first-frame>+5%", "", "first-frame", "phase", "wall", Threshold{Kind: Percent, Percent: 5}},
		{"phase:bind:cpu>+2ms", "", "bind", "phase", "cpu", Threshold{Kind: Duration, Nanos: 2 * ms}},
		{"phase:bind:offcpu>1ms", "", "bind", "phase", "offcpu", Threshold{Kind: Duration, Nanos: ms}},
		// Metric rules: the name goes to MetricName (checked below).
		{"metric:timeNs>+5%", "", "", "metric", "", Threshold{Kind: Percent, Percent: 5}},
		{"metric:allocationCount>+10", "", "", "metric", "", Threshold{Kind: Amount, Amount: 10}},
		{"metric:allocationCount>0.5", "", "", "metric", "", Threshold{Kind: Amount, Amount: 0.5}},
		{"metric:timeNs>+2ms", "", "", "metric", "", Threshold{Kind: Amount, Amount: 2e6}},
		{"metric:timeToInitialDisplayMs>+20ms", "", "", "metric", "", Threshold{Kind: Amount, Amount: 20}},
		{"metric:timeToInitialDisplayMs>+1500us", "", "", "metric", "", Threshold{Kind: Amount, Amount: 1.5}},
		{"metric:gcTimeUs>1ms", "", "", "metric", "", Threshold{Kind: Amount, Amount: 1000}},
	} {
		r, err := ParseRule(tc.in)
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tc.in, err)
			continue
		}
		pat := ""
		if r.Pattern != nil {
			pat = r.Pattern.String()
		}
		if name, ok := strings.CutPrefix(tc.in, "metric:"); ok && r.MetricName != name[:strings.IndexByte(name, '>')] {
			t.Errorf("ParseRule(%q): metric name %q", tc.in, r.MetricName)
		}
		if r.Text != tc.in || pat != tc.pattern || r.Phase != tc.phase || r.Metric != tc.metric || r.Clock != tc.clock || r.Threshold != tc.thr {
			t.Errorf("ParseRule(%q) = text %q pattern %q phase %q metric %q clock %q threshold %+v,\nwant pattern %q phase %q metric %q clock %q threshold %+v",
				tc.in, r.Text, pat, r.Phase, r.Metric, r.Clock, r.Threshold, tc.pattern, tc.phase, tc.metric, tc.clock, tc.thr)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"incl+2ms", `rule "incl+2ms": expected [METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD, phase:NAME[:CLOCK]>THRESHOLD or metric:NAME>THRESHOLD, as in incl>+2ms`},
		{"", `rule "": expected [METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD, phase:NAME[:CLOCK]>THRESHOLD or metric:NAME>THRESHOLD, as in incl>+2ms`},
		{"incl>", `rule "incl>": no threshold after '>': expected a duration (+2ms), a percentage (+10%) or a count (+5)`},
		{"wall>+2ms", `rule "wall>+2ms": metric "wall": expected incl, excl or calls, optionally with .wall, .cpu or .offcpu ([METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD)`},
		{">+2ms", `rule ">+2ms": metric "": expected incl, excl or calls, optionally with .wall, .cpu or .offcpu ([METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD)`},
		{"foo:>+2ms", `rule "foo:>+2ms": metric "": expected incl, excl or calls, optionally with .wall, .cpu or .offcpu ([METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD)`},
		{"incl.gpu>+2ms", `rule "incl.gpu>+2ms": clock "gpu": expected wall, cpu or offcpu`},
		{"incl.>+2ms", `rule "incl.>+2ms": clock "": expected wall, cpu or offcpu`},
		{"calls.cpu>+5", `rule "calls.cpu>+5": metric "calls.cpu": calls has no clock: write calls`},
		{":incl>+2ms", `rule ":incl>+2ms": empty METHOD_PATTERN before ':': drop the ':' to check every method`},
		{"(:incl>+2ms", `rule "(:incl>+2ms": METHOD_PATTERN "(": expected a Go regular expression: missing closing )`},
		{"a\n(:incl>+2ms", `rule "a\n(:incl>+2ms": METHOD_PATTERN "a\n(": expected a Go regular expression: missing closing )`},
		{"phase:First>+5%", `rule "phase:First>+5%": phase name "First": expected lower-case letters and '-', as in phase:first-frame>+5%`},
		{"phase:>+5%", `rule "phase:>+5%": phase name "": expected lower-case letters and '-', as in phase:first-frame>+5%`},
		{"phase:bind:gpu>+5%", `rule "phase:bind:gpu>+5%": clock "gpu": expected wall, cpu or offcpu`},
		{"phase:bind>+5", `rule "phase:bind>+5": threshold "+5" is a count: phase takes a duration (+2ms) or a percentage (+10%)`},
		{"incl>-2ms", `rule "incl>-2ms": threshold "-2ms": expected an increase such as +2ms (improvements are reported without a rule)`},
		{"incl>++2ms", `rule "incl>++2ms": threshold "++2ms": expected an increase such as +2ms (improvements are reported without a rule)`},
		{"incl>+-5%", `rule "incl>+-5%": threshold "+-5%": expected an increase such as +2ms (improvements are reported without a rule)`},
		{"incl>+x%", `rule "incl>+x%": threshold "+x%": expected a percentage such as +10%`},
		{"incl>%", `rule "incl>%": threshold "%": expected a percentage such as +10%`},
		{"incl>NaN%", `rule "incl>NaN%": threshold "NaN%": expected a percentage such as +10%`},
		{"incl>+Inf%", `rule "incl>+Inf%": threshold "+Inf%": expected a percentage such as +10%`},
		{"incl>+5", `rule "incl>+5": threshold "+5" is a count: incl takes a duration (+2ms) or a percentage (+10%)`},
		{"excl.cpu>0", `rule "excl.cpu>0": threshold "0" is a count: excl takes a duration (+2ms) or a percentage (+10%)`},
		{"calls>+99999999999999999999", `rule "calls>+99999999999999999999": threshold "+99999999999999999999": expected a count below 2^63`},
		{"incl>+2parsecs", `rule "incl>+2parsecs": threshold "+2parsecs": expected a duration (+2ms), a percentage (+10%) or a count (+5)`},
		{"incl>+", `rule "incl>+": threshold "+": expected a duration (+2ms), a percentage (+10%) or a count (+5)`},
		{"incl>+3000000h", `rule "incl>+3000000h": threshold "+3000000h": expected a duration (+2ms), a percentage (+10%) or a count (+5)`},
		{"calls>+2ms", `rule "calls>+2ms": threshold "+2ms" is a duration: calls takes a count (+5) or a percentage (+10%)`},
		{"metric:>+5%", `rule "metric:>+5%": metric name "": expected the name of a benchmark metric, as in metric:timeNs>+5%`},
		{"metric:time ns>+5%", `rule "metric:time ns>+5%": metric name "time ns": expected the name of a benchmark metric, as in metric:timeNs>+5%`},
		{"metric:allocationCount>+2ms", `rule "metric:allocationCount>+2ms": threshold "+2ms" is a duration: allocationCount has no unit of time in its name (…Ns, …Us or …Ms); give a number in its unit or a percentage`},
		{"metric:timeNs>-5%", `rule "metric:timeNs>-5%": threshold "-5%": expected an increase such as +2ms (improvements are reported without a rule)`},
		{"metric:timeNs>+x", `rule "metric:timeNs>+x": threshold "+x": expected a percentage (+5%), a number in the metric's unit (+10) or, for a time metric, a duration (+2ms)`},
		{"metric:timeNs>1e3", `rule "metric:timeNs>1e3": threshold "1e3": expected a percentage (+5%), a number in the metric's unit (+10) or, for a time metric, a duration (+2ms)`},
		{"metric:timeNs>NaN%", `rule "metric:timeNs>NaN%": threshold "NaN%": expected a percentage such as +10%`},
	} {
		_, err := ParseRule(tc.in)
		if err == nil {
			t.Errorf("ParseRule(%q): no error, want %s", tc.in, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("ParseRule(%q):\n got %s\nwant %s", tc.in, err, tc.want)
		}
	}
}

// canonical writes r from its fields, with the threshold in its smallest
// unit: parsing it must give the same rule.
func canonical(r *Rule) string {
	var b strings.Builder
	switch r.Metric {
	case "phase":
		b.WriteString("phase:" + r.Phase + ":" + r.Clock)
	case "metric":
		b.WriteString("metric:" + r.MetricName)
	default:
		if r.Pattern != nil {
			b.WriteString(r.Pattern.String() + ":")
		}
		b.WriteString(r.Metric)
		if r.Clock != "" {
			b.WriteString("." + r.Clock)
		}
	}
	b.WriteString(">+")
	switch t := r.Threshold; t.Kind {
	case Duration:
		b.WriteString(strconv.FormatInt(t.Nanos, 10) + "ns")
	case Percent:
		b.WriteString(strconv.FormatFloat(t.Percent, 'g', -1, 64) + "%")
	case Count:
		b.WriteString(strconv.FormatInt(t.Count, 10))
	case Amount:
		b.WriteString(strconv.FormatFloat(t.Amount, 'f', -1, 64))
	}
	return b.String()
}

func sameRule(a, b *Rule) bool {
	pa, pb := "", ""
	if a.Pattern != nil {
		pa = "p" + a.Pattern.String()
	}
	if b.Pattern != nil {
		pb = "p" + b.Pattern.String()
	}
	return pa == pb && a.Phase == b.Phase && a.MetricName == b.MetricName && a.Metric == b.Metric && a.Clock == b.Clock && a.Threshold == b.Threshold
}

// FuzzParseRule: no input panics; an error is one line naming the rule; a
// parsed rule keeps its text, parses again to the same rule, and so does
// its canonical form; its threshold is of a kind its metric takes, and
// non-negative; Judge and Applies take it.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"incl>+2ms", "excl.cpu>2ms", "incl.offcpu>+500us", "calls>+5", "calls>+10%",
		`com\.example\..*:incl.cpu>+10%`, `(?i:foo):excl>+1ms`, `a>b:incl>+1ms`,
		"phase:first-frame>+5%", "phase:bind:cpu>+2ms", "incl>-2ms", "(:incl>+2ms", "incl>+1.5s",
		"metric:timeNs>+5%", "metric:allocationCount>+0.5", "metric:timeToInitialDisplayMs>+20ms",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "rule "+strconv.Quote(s)+": ") {
				t.Fatalf("ParseRule(%q): error %q: want one line starting with the rule", s, msg)
			}
			return
		}
		if r.Text != s {
			t.Fatalf("ParseRule(%q).Text = %q", s, r.Text)
		}
		again, err := ParseRule(r.Text)
		if err != nil || !sameRule(&r, &again) {
			t.Fatalf("ParseRule(%q) again: %+v, %v; first %+v", s, again, err, r)
		}
		c := canonical(&r)
		back, err := ParseRule(c)
		if err != nil || !sameRule(&r, &back) {
			t.Fatalf("ParseRule(%q): canonical %q parses to %+v, %v; want %+v", s, c, back, err, r)
		}
		th := r.Threshold
		switch {
		case th.Nanos < 0 || th.Count < 0 || th.Percent < 0 || math.IsNaN(th.Percent) || math.IsInf(th.Percent, 0) ||
			th.Amount < 0 || math.IsNaN(th.Amount) || math.IsInf(th.Amount, 0):
			t.Fatalf("ParseRule(%q): threshold %+v", s, th)
		case th.Kind == Count && r.Metric != "calls", th.Kind == Duration && (r.Metric == "calls" || r.Metric == "metric"),
			th.Kind == Amount && r.Metric != "metric":
			t.Fatalf("ParseRule(%q): %s threshold for %s", s, th.Kind, r.Metric)
		}
		ser := Series{Subject: "a.B.c", Signature: "()V", Kind: Method, Metric: r.Metric, Clock: r.Clock,
			Old: []float64{1, 2, 3}, New: []float64{0, 5, 7}}
		switch r.Metric {
		case "phase":
			ser.Subject, ser.Kind = r.Phase, Phase
		case "metric":
			ser.Subject, ser.Kind = r.MetricName, BenchmarkMetric
		}
		if !r.Applies(&ser) && r.Pattern == nil {
			t.Fatalf("ParseRule(%q) does not apply to its own series %+v", s, ser)
		}
		_ = r.Applies(&ser)
		if res := Judge(&r, &ser, 0.05); res.Rule != s || res.Verdict == "" {
			t.Fatalf("Judge: %+v", res)
		}
	})
}
