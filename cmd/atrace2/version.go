package main

import "github.com/atrace2/atrace2/internal/buildinfo"

// version, commit and date are set at build time, as GoReleaser's
// .goreleaser.yaml does: go build -ldflags "-X main.version=v1.2.3
// -X main.commit=abc1234... -X main.date=2026-11-26T05:00:00Z".
var (
	version = ""
	commit  = ""
	date    = ""
)

// versionString is the version the outputs record (buildinfo.String).
func versionString() string { return buildinfo.String(version) }
