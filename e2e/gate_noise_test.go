package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// TestGateNoChange measures the gate's false-positive rate: 20 seeds, each
// comparing 10 runs of tracegen.FeedApp(300) (about 360 methods) with 10
// other runs of the same app under tracegen.RealisticNoise, at alpha 0.05,
// with rules over every method at +10 %, +20 % and +30 % and one at +1ms.
//
// A rule over every method makes about 360 comparisons per set, and at
// +10 % the noisiest methods pass the threshold often (a method called once
// varies by about 11 % per run). Without a correction, a few of them would
// pass the test by chance in most unchanged sets. Each rule's p-values are
// adjusted for its number of checks (Holm, package gate), so a rule fails an
// unchanged set with probability at most alpha: asserted for every rule as
// at most 3 of 20 sets (alpha's 1 plus the sampling error of 20 seeds), and
// per rule and subject at most 0.02. With 10 runs a side a rule can still
// regress (complete separation: p = 2/184756, times 360 checks = 0.004).
func TestGateNoChange(t *testing.T) {
	t.Parallel()
	const (
		seeds = 20
		runs  = 10
	)
	rules := []string{"excl>+10%", "incl>+10%", "excl>+20%", "incl>+20%", "excl>+30%", "incl>+30%", "excl>+1ms"}
	var args []string
	for _, r := range rules {
		args = append(args, "--fail-on", r)
	}
	args = append(args, "--format", "json")
	app := tracegen.FeedApp(300)
	dir := t.TempDir()

	type tally struct{ judged, regressed, inconclusive, sets int }
	var (
		mu    sync.Mutex
		per   = map[string]*tally{}
		exits = map[int]int{}
	)
	for _, r := range rules {
		per[r] = &tally{}
	}
	t.Run("seeds", func(t *testing.T) {
		for seed := range uint64(seeds) {
			t.Run(fmt.Sprint(seed), func(t *testing.T) {
				t.Parallel()
				o := tracegen.RunOptions{Noise: tracegen.RealisticNoise, Seed: 1000 + 2*seed}
				old := writeGateSet(t, dir, fmt.Sprintf("s%d-old", seed), app, o, runs)
				o.Seed++
				cur := writeGateSet(t, dir, fmt.Sprintf("s%d-new", seed), app, o, runs)
				r := gateDiff(t, old.paths, cur.paths, args...)
				if r.code != 0 && r.code != 3 {
					t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
				}
				rep := gateJSON(t, r)
				mu.Lock()
				defer mu.Unlock()
				exits[r.code]++
				failed := map[string]bool{}
				for _, v := range rep.Verdicts {
					ta, ok := per[v.Rule]
					if !ok {
						t.Errorf("verdict of an unknown rule %q", v.Rule)
						continue
					}
					ta.judged++
					switch v.Verdict {
					case "regressed":
						ta.regressed++
						failed[v.Rule] = true
						t.Logf("%s %s %s.%s: %+.1f%%, p %.4f", v.Rule, v.Subject, v.Metric, v.Clock, ptr(v.Pct), ptr(v.P))
					case "inconclusive":
						ta.inconclusive++
					}
				}
				for r := range failed {
					per[r].sets++
				}
				if (r.code == 3) != (len(failed) > 0) {
					t.Errorf("exit %d with regressions under %v", r.code, failed)
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "false positives over %d seeds, %d runs a side, alpha 0.05 (exit 0: %d sets, exit 3: %d):\n", seeds, runs, exits[0], exits[3])
	for _, r := range rules {
		ta := per[r]
		fmt.Fprintf(&b, "  %-10s per rule×subject %d/%d = %.4f regressed (%d inconclusive); per set %d/%d = %.3f\n",
			r, ta.regressed, ta.judged, float64(ta.regressed)/float64(max(ta.judged, 1)), ta.inconclusive, ta.sets, seeds, float64(ta.sets)/seeds)
		if ta.judged < seeds*300 {
			t.Errorf("%s: %d verdicts over %d seeds; the rule should judge every method of every set", r, ta.judged, seeds)
		}
		if rate := float64(ta.regressed) / float64(max(ta.judged, 1)); rate > 0.02 {
			t.Errorf("%s: %.4f of the (rule, subject) verdicts regressed without a change; at alpha 0.05 it is at most 0.016 even before Holm's adjustment", r, rate)
		}
		if ta.sets > 3 {
			t.Errorf("%s: %d of %d unchanged sets regressed; with Holm's adjustment a rule fails at most alpha of them", r, ta.sets, seeds)
		}
	}
	t.Log(b.String())
}
