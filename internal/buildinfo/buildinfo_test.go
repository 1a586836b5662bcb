package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	vcs := func(kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	for _, c := range []struct {
		name, version, commit, date string
		bi                          *debug.BuildInfo
		want                        string
	}{
		{"release", "v1.2.3", "abc1234def5678", "2026-11-26T05:00:00Z", nil, "atrace2 v1.2.3 (commit abc1234, 2026-11-26)"},
		{"release-wins-over-vcs", "v1.2.3", "abc1234def5678", "2026-11-26T05:00:00Z",
			vcs("vcs.revision", "ffffffffffff", "vcs.time", "2020-01-01T00:00:00Z"), "atrace2 v1.2.3 (commit abc1234, 2026-11-26)"},
		{"go-build", "(devel)", "", "", vcs("vcs", "git", "vcs.revision", "f9fb7751234567", "vcs.time", "2026-11-25T23:59:59+01:00", "vcs.modified", "false"),
			"atrace2 (devel) (commit f9fb775, 2026-11-25)"},
		{"go-build-modified", "v0.0.0-20261125-f9fb775", "", "", vcs("vcs.revision", "f9fb7751234567", "vcs.time", "2026-11-25T10:00:00Z", "vcs.modified", "true"),
			"atrace2 v0.0.0-20261125-f9fb775 (commit f9fb775+dirty, 2026-11-25)"},
		{"no-vcs", "(devel)", "", "", &debug.BuildInfo{}, "atrace2 (devel)"},
		{"no-buildinfo", "(devel)", "", "", nil, "atrace2 (devel)"},
		{"odd-date", "v1", "abc", "yesterday", nil, "atrace2 v1 (commit abc, yesterday)"},
	} {
		if got := Format(c.version, c.commit, c.date, c.bi); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
