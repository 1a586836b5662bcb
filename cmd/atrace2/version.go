package main

import (
	"runtime/debug"
	"time"
)

// version, commit and date are set at build time, as GoReleaser's
// .goreleaser.yaml does: go build -ldflags "-X main.version=v1.2.3
// -X main.commit=abc1234... -X main.date=2026-11-26T05:00:00Z".
var (
	version = ""
	commit  = ""
	date    = ""
)

// versionString is the version the outputs record (the pprof comment,
// speedscope's exporter): the one set at build time, else the module version
// go install records, else "(devel)".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionLine is what --version prints: the name, the version, and the
// commit and date when known, e.g. "atrace2 v1.2.3 (commit abc1234,
// 2026-11-26)". A release build has them from -ldflags; a go install or go
// build of a checkout from the build information's vcs.revision and
// vcs.time (go build -buildvcs, the default in a git checkout).
func versionLine() string {
	bi, _ := debug.ReadBuildInfo()
	return formatVersion(versionString(), commit, date, bi)
}

// formatVersion builds versionLine from the -ldflags values, falling back
// to bi's VCS settings for the commit and date it lacks.
func formatVersion(version, commit, date string, bi *debug.BuildInfo) string {
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
