package main

import "runtime/debug"

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version = ""

// versionString falls back to the module version go install records.
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
