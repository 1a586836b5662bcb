package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// TestGateNoChange measures the gate's false-positive rate: 40 seeds, each
// comparing 10 runs of tracegen.FeedApp(300) (about 360 methods) with 10
// other runs of the same app under tracegen.RealisticNoise, and the first 5
// runs of each side, at alpha 0.05 under the default adjustment
// (Benjamini–Hochberg), with rules over every method at +10 %, +20 % and
// +30 % and one at +1ms.
//
// A rule over every method makes about 360 comparisons per set, and at
// +10 % the noisiest methods pass the threshold often (a method called once
// varies by about 11 % per run). Without a correction, a few of them would
// pass the test by chance in most unchanged sets. Each rule's p-values are
// adjusted for its number of checks (package gate), so a rule fails an
// unchanged set with probability at most alpha: asserted for every rule as
// at most 6 of 40 sets (at a true rate of 0.05, 6 or more happen 1.4 % of
// the time), and per rule and subject at most 0.02. The rates are logged
// (go test -v -run TestGateNoChange ./e2e). So that the measure can fail,
// the 10-run sets are also judged by excl>+10% with --adjust none, which
// must fail most of them.
func TestGateNoChange(t *testing.T) {
	t.Parallel()
	const seeds = 40
	sizes := []int{10, 5} // runs a side
	rules := []string{"excl>+10%", "incl>+10%", "excl>+20%", "incl>+20%", "excl>+30%", "incl>+30%", "excl>+1ms"}
	var args []string
	for _, r := range rules {
		args = append(args, "--fail-on", r)
	}
	args = append(args, "--format", "json")
	app := tracegen.FeedApp(300)
	dir := t.TempDir()

	type tally struct{ judged, regressed, inconclusive, sets int }
	type key struct {
		runs int
		rule string
	}
	var (
		mu    sync.Mutex
		per   = map[key]*tally{}
		exits = map[key]int{} // rule "" counts exit 3
	)
	for _, n := range sizes {
		for _, r := range rules {
			per[key{n, r}] = &tally{}
		}
	}
	t.Run("seeds", func(t *testing.T) {
		for seed := range uint64(seeds) {
			t.Run(fmt.Sprint(seed), func(t *testing.T) {
				t.Parallel()
				o := tracegen.RunOptions{Noise: tracegen.RealisticNoise, Seed: 1000 + 2*seed}
				old := writeGateSet(t, dir, fmt.Sprintf("s%d-old", seed), app, o, sizes[0])
				o.Seed++
				cur := writeGateSet(t, dir, fmt.Sprintf("s%d-new", seed), app, o, sizes[0])
				for _, n := range sizes {
					r := gateDiff(t, old.paths[:n], cur.paths[:n], args...)
					if r.code != 0 && r.code != 3 {
						t.Fatalf("%d runs: exit %d\nstderr: %s", n, r.code, r.stderr)
					}
					rep := gateJSON(t, r)
					mu.Lock()
					if r.code == 3 {
						exits[key{n, ""}]++
					}
					failed := map[string]bool{}
					for _, v := range rep.Verdicts {
						ta, ok := per[key{n, v.Rule}]
						if !ok {
							t.Errorf("verdict of an unknown rule %q", v.Rule)
							continue
						}
						ta.judged++
						switch v.Verdict {
						case "regressed":
							ta.regressed++
							failed[v.Rule] = true
							t.Logf("%d runs: %s %s %s.%s: %+.1f%%, p %.4f", n, v.Rule, v.Subject, v.Metric, v.Clock, ptr(v.Pct), ptr(v.P))
						case "inconclusive":
							ta.inconclusive++
						}
					}
					for r := range failed {
						per[key{n, r}].sets++
					}
					mu.Unlock()
					if (r.code == 3) != (len(failed) > 0) {
						t.Errorf("%d runs: exit %d with regressions under %v", n, r.code, failed)
					}
				}
				r := gateDiff(t, old.paths, cur.paths, "--fail-on", "excl>+10%", "--adjust", "none")
				if r.code != 0 && r.code != 3 {
					t.Fatalf("--adjust none: exit %d\nstderr: %s", r.code, r.stderr)
				}
				if r.code == 3 {
					mu.Lock()
					exits[key{0, "none"}]++
					mu.Unlock()
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	var b strings.Builder
	for _, n := range sizes {
		fmt.Fprintf(&b, "false positives over %d seeds, %d runs a side, alpha 0.05, bh (exit 3: %d of %d sets):\n", seeds, n, exits[key{n, ""}], seeds)
		for _, r := range rules {
			ta := per[key{n, r}]
			fmt.Fprintf(&b, "  %-10s per rule×subject %d/%d = %.4f regressed (%d inconclusive); per set %d/%d = %.3f\n",
				r, ta.regressed, ta.judged, float64(ta.regressed)/float64(max(ta.judged, 1)), ta.inconclusive, ta.sets, seeds, float64(ta.sets)/seeds)
			if ta.judged < seeds*300 {
				t.Errorf("%d runs, %s: %d verdicts over %d seeds; the rule should judge every method of every set", n, r, ta.judged, seeds)
			}
			if rate := float64(ta.regressed) / float64(max(ta.judged, 1)); rate > 0.02 {
				t.Errorf("%d runs, %s: %.4f of the (rule, subject) verdicts regressed without a change; at alpha 0.05 it is at most 0.016 even unadjusted", n, r, rate)
			}
			if ta.sets > 6 {
				t.Errorf("%d runs, %s: %d of %d unchanged sets regressed; adjusted, a rule fails at most alpha of them", n, r, ta.sets, seeds)
			}
		}
	}
	unadjusted := exits[key{0, "none"}]
	fmt.Fprintf(&b, "unadjusted, 10 runs a side: excl>+10%% failed %d of %d sets\n", unadjusted, seeds)
	if unadjusted < seeds/4 {
		t.Errorf("excl>+10%% --adjust none failed %d of %d unchanged sets: the sets are too calm to measure the adjustment", unadjusted, seeds)
	}
	t.Log(b.String())
}
