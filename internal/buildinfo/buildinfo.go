// Package buildinfo says which atrace2 build is running: the version the
// outputs record and the line --version prints, from the values the
// release build sets with -ldflags and the build information Go records.
package buildinfo

import (
	"runtime/debug"
	"time"
)

// String is the version the outputs record (the pprof comment,
// speedscope's exporter): version, the one set at build time when it is
// set, else the module version go install records, else "(devel)".
func String(version string) string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// Line is what --version prints: the name, the version, and the commit
// and date when known, e.g. "atrace2 v1.2.3 (commit abc1234, 2026-11-26)".
// A release build has them from -ldflags; a go install or go build of a
// checkout from the build information's vcs.revision and vcs.time (go
// build -buildvcs, the default in a git checkout).
func Line(version, commit, date string) string {
	bi, _ := debug.ReadBuildInfo()
	return Format(String(version), commit, date, bi)
}

// Format builds Line from the -ldflags values, falling back
// to bi's VCS settings for the commit and date it lacks.
func Format(version, commit, date string, bi *debug.BuildInfo) string {
	modified := false
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if commit == "" {
					commit = s.Value
				}
			case "vcs.time":
				if date == "" {
					date = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var extra []string
	if commit != "" {
		if len(commit) > 7 {
			commit = commit[:7]
		}
		if modified {
			commit += "+dirty"
		}
		extra = append(extra, "commit "+commit)
	}
	if date != "" {
		if t, err := time.Parse(time.RFC3339, date); err == nil {
			date = t.UTC().Format(time.DateOnly)
		}
		extra = append(extra, date)
	}
	s := "atrace2 " + version
	for i, e := range extra {
		if i == 0 {
			s += " (" + e
		} else {
			s += ", " + e
		}
	}
	if len(extra) > 0 {
		s += ")"
	}
	return s
}
