// Package perfettopb holds the Go types generated from perfetto_trace.proto,
// atrace2's own subset of the Perfetto trace format (field numbers and wire
// types identical to upstream). Only package perfetto imports it.
//
// The generated file is committed; TestGeneratedCodeIsFresh fails when it no
// longer matches the .proto. Regenerate with the pinned tools (README.md):
//
//	go generate ./proto
package perfettopb

//go:generate protoc -I . --go_out=. --go_opt=paths=source_relative perfetto_trace.proto
