package benchdata

import (
	"fmt"
	"slices"
	"strings"
)

// Finding is a way in which the two sides were not measured alike, or not
// measured well: a warning, or a failure with --strict.
type Finding struct {
	// Check is what was compared: "device", "fingerprint", "compilation",
	// "clocks" or "thermal".
	Check   string `json:"check"`
	Message string `json:"message"`
}

// Checks are the context checks, in the order CheckContext reports them.
var Checks = []string{"device", "fingerprint", "compilation", "clocks", "thermal"}

// CheckContext compares the contexts of the old and the new files and looks
// for runs that measured badly, in the order of Checks:
//
//   - device, fingerprint, compilation: the sides differ in the device
//     (build.device and model), the build fingerprint (the OS build) or the
//     app's compilation mode, or both mix the same several;
//   - clocks: a file says the CPU clocks were not locked (cpuLocked false);
//   - thermal: a benchmark slept because the device throttled
//     (thermalThrottleSleepSeconds above 0), which the pairs' runs show.
//
// Files that do not say (an absent cpuLocked or thermal sleep) pass.
func CheckContext(olds, news []*File, pairs []*Pair) []Finding {
	var out []Finding
	for _, c := range []struct {
		check, what string
		value       func(*Context) string
	}{
		{"device", "device", func(c *Context) string {
			if c.Model != "" {
				return c.Device + " (" + c.Model + ")"
			}
			return c.Device
		}},
		{"fingerprint", "build fingerprint", func(c *Context) string { return c.Fingerprint }},
		{"compilation", "compilation mode", func(c *Context) string { return c.CompilationMode }},
	} {
		o, n := values(olds, c.value), values(news, c.value)
		switch {
		case len(o) == 0 || len(n) == 0: // a side does not say: nothing to compare
		case !slices.Equal(o, n):
			out = append(out, Finding{c.check, fmt.Sprintf("the sides differ in %s: old %s, new %s", c.what, list(o), list(n))})
		case len(o) > 1:
			out = append(out, Finding{c.check, fmt.Sprintf("each side mixes %ss: %s", c.what, list(o))})
		}
	}
	var unlocked []string
	for _, side := range []struct {
		name  string
		files []*File
	}{{"old", olds}, {"new", news}} {
		for _, f := range side.files {
			if l := f.Context.CPULocked; l != nil && !*l {
				unlocked = append(unlocked, f.Path+" ("+side.name+")")
			}
		}
	}
	if len(unlocked) > 0 {
		out = append(out, Finding{"clocks", fmt.Sprintf("CPU clocks were not locked in %d of %d files: %s",
			len(unlocked), len(olds)+len(news), strings.Join(unlocked, ", "))})
	}
	for _, p := range pairs {
		var slept []string
		for _, side := range []struct {
			name string
			runs []Run
		}{{"old", p.Old}, {"new", p.New}} {
			for _, r := range side.runs {
				if s := r.ThermalThrottleSleepSeconds; s > 0 {
					slept = append(slept, fmt.Sprintf("%d s in %s (%s)", s, r.File.Path, side.name))
				}
			}
		}
		if len(slept) > 0 {
			out = append(out, Finding{"thermal", fmt.Sprintf("%s: thermal throttling slept %s", p.Key, strings.Join(slept, ", "))})
		}
	}
	return out
}

// values are the distinct non-empty values of one context field, sorted.
func values(files []*File, v func(*Context) string) []string {
	var out []string
	for _, f := range files {
		if s := v(&f.Context); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func list(vs []string) string { return strings.Join(vs, ", ") }
