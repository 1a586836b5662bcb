// Package gate decides whether a change made a program slower, beyond the
// noise: it parses the --fail-on rules of `atrace2 diff` and gives each
// (rule, subject) a verdict from the runs before (old) and after (new)
// the change. It imports only the standard library and internal/stats;
// package report prints its results and cmd/atrace2 turns them into an
// exit code.
//
// # Series
//
// A Series is what one rule looks at: one subject (a method, the thread
// totals, or a startup phase) on one metric (exclusive or inclusive time,
// calls, or a phase's duration) and clock (wall, cpu, offcpu), with one
// value per run on each side: Old holds the value in each old trace, New in
// each new one. A method absent from a run counts 0 there. The caller
// (cmd/atrace2 diff) builds the series from the runs' profiles; this
// package never reads a trace.
//
// # Rules
//
// A rule names what to check and how much of an increase is too much:
//
//	[METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD
//	phase:NAME[:CLOCK]>THRESHOLD
//	metric:NAME>THRESHOLD
//
//	incl>+2ms                      every method's inclusive time (and the totals), on the traces' first clock
//	com\.example\..*:excl.cpu>+10%  exclusive thread CPU time of the methods the pattern matches
//	calls>+5                       five more calls than before
//	phase:first-frame>+5%          the first-frame startup phase, on the wall clock
//	metric:timeNs>+5%              a Jetpack Benchmark metric of every benchmark (package benchdata)
//	metric:allocationCount>+10     ten allocations more, in the metric's own unit
//
// METRIC is incl, excl or calls; CLOCK is wall, cpu or offcpu (calls have
// none). THRESHOLD is a duration (+2ms, +500us, +1.5s: the units of Go's
// time.ParseDuration), a percentage of the old median (+10%), or a count
// (+5, calls only); the '+' is optional and a threshold is never negative.
// METHOD_PATTERN is a Go regular expression, unanchored (write ^…$ to
// match a whole name), tried on the method's label without its signature
// ("com.example.Foo.bar") and with it ("com.example.Foo.bar(I)V"); a rule
// with a pattern checks methods only, one without checks every method and
// the thread totals. The threshold follows the last '>' of the rule and
// the pattern ends at the last ':' before the metric, so a pattern may
// hold ':' and '>'. A rule that starts with "phase:" is a phase rule (to
// match methods by the pattern "phase", write "(?:phase):incl>…"), and one
// that starts with "metric:" a metric rule (likewise). A metric rule's
// THRESHOLD is a percentage, a number in the metric's unit (decimals
// allowed: +0.5), or, when the metric's name ends with Ns, Us or Ms (timeNs,
// timeToInitialDisplayMs), a duration converted to that unit.
//
// # Verdicts
//
// Judge compares the medians of the two sides: Delta = median(New) −
// median(Old). The change passes the threshold when Delta is more than it
// (strictly: the syntax says '>'); for a percentage, when 100·Delta/old
// median is; an old median 0 makes any increase +∞ % (and any decrease
// −∞ %). Then:
//
//   - regressed: the change passes the threshold, each side has at least
//     MinRuns (3) runs, and the Mann–Whitney U test's p-value, adjusted
//     for the rule's number of checks, is below alpha (--alpha, 0.05 by
//     default). This fails the CI job (exit 3).
//   - inconclusive: the change passes the threshold but the adjusted
//     p-value is not below alpha, or a side has fewer than 3 runs. Passes
//     by default; --inconclusive=fail makes it fail (exit 4).
//   - improved: the change passes the threshold downward (Delta below
//     −threshold). Reported, never fails.
//   - ok: otherwise.
//
// Summarize reduces the verdicts of all rules to one Outcome.
//
// # The statistics, and why
//
// Run times are skewed (a GC, another process or a cold cache makes a run
// much slower, never much faster) and a CI job records few runs, often 3 to
// 10 per side. So the gate uses non-parametric statistics, which assume no
// distribution: the median, which one slow run does not move, and the
// two-sided Mann–Whitney U test, which compares the two sides by the ranks
// of their values, so that an outlier counts as one rank, not as its size.
// The threshold says how large a change matters; the test says whether a
// change of that size is more than the noise between runs. Up to 20 runs
// per side the p-value is exact (ties included); beyond, it is the normal
// approximation with tie and continuity corrections (internal/stats).
//
// Few runs limit what the test can show: with 3 runs per side the smallest
// possible p is 0.1 (every new run slower than every old one), so nothing
// is ever regressed at alpha 0.05, only inconclusive; 3 vs 5 (p ≥ 0.036)
// and 4 vs 4 (p ≥ 0.029) can reach 0.05, but only when every new run is
// slower than every old one; 5 vs 5 (p ≥ 0.008) tolerates two crossings.
//
// # Many checks
//
// A rule without a pattern checks every method: hundreds of tests, of
// which a few pass at alpha 0.05 by chance in every pair of unchanged run
// sets. So Family adjusts the p-values of one rule's checks for their
// number m before comparing them with alpha (Options.Adjust, --adjust):
//
//   - bh (Benjamini–Hochberg, the default): sorted, the k-th smallest
//     becomes min over j ≥ k of m/j·p_(j). With no change anywhere it
//     fails a rule with probability at most alpha, like Holm (under no
//     change a false discovery is any discovery), when the checks are
//     independent or positively dependent, as the times of methods of
//     one run are. When a change moves
//     many checks together, as a slower method moves the inclusive time
//     of every caller, their small p-values lift each other: five checks
//     of 29 completely separated at 5 runs a side (p = 2/252 each) adjust
//     to 29/5·2/252 = 0.046. What it bounds beyond that is the expected
//     share of false regressions among those reported, not the chance of
//     any.
//   - holm: the k-th smallest becomes max over j ≤ k of (m−j+1)·p_(j):
//     the chance of any false regression stays at most alpha whatever
//     the other checks do, but one check alone needs p < alpha/m, which
//     5 runs a side never reach for m > 6.
//   - none: p as it is, for a rule naming one method or a few.
//
// Both keep an unchanged run set from failing more than alpha of the time
// (e2e TestGateNoChange measures it on generated runs). When the smallest p-value the run
// counts allow, adjusted, stays at or above alpha for every inconclusive
// check of a rule, no run set of that size could make it regress: Family
// returns an Undecided, which says so and how many runs a side would let
// it decide.
package gate
