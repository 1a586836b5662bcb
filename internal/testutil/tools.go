package testutil

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TraceProcessor returns Perfetto's trace_processor_shell
// (../shared/tools/trace_processor_shell, or $ATRACE2_TRACE_PROCESSOR), or
// skips the test when it is not there, failing instead under
// ATRACE2_TP=require or all (CI sets require).
func TraceProcessor(t testing.TB) string {
	t.Helper()
	path := os.Getenv("ATRACE2_TRACE_PROCESSOR")
	if path == "" {
		path = filepath.Join(RepoRoot(t), "..", "shared", "tools", "trace_processor_shell")
	}
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("trace_processor_shell not found (%v): set ATRACE2_TRACE_PROCESSOR to a Perfetto trace_processor_shell binary", err)
		if v := os.Getenv("ATRACE2_TP"); v == "require" || v == "all" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// TPQuery imports the trace at path with trace_processor_shell and runs
// the query, returning the rows of its last statement's CSV output
// without the header.
func TPQuery(t testing.TB, tp, path, query string) [][]string {
	t.Helper()
	q := filepath.Join(t.TempDir(), "query.sql")
	if err := os.WriteFile(q, []byte(query), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tp, "-q", q, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("trace_processor_shell: %v\n%s", err, stderr.Bytes())
	}
	// The shell prints each statement's result as CSV after a blank line;
	// the last one is the query's.
	text := strings.TrimSpace(string(out))
	if i := strings.LastIndex(text, "\n\n"); i >= 0 {
		text = text[i+2:]
	}
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("trace_processor_shell output: %v\n%s", err, out)
	}
	if len(rows) == 0 {
		return nil
	}
	return rows[1:]
}

// Protoc returns the path of protoc, or skips the test when it is not
// installed, failing instead under ATRACE2_PROTOC=require (CI sets it).
func Protoc(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("protoc")
	if err != nil {
		msg := "protoc is not installed (apt-get install protobuf-compiler, or .ci/setup-protoc.sh)"
		if os.Getenv("ATRACE2_PROTOC") == "require" {
			t.Fatal(msg + " (ATRACE2_PROTOC=require)")
		}
		t.Skip(msg)
	}
	return p
}

// EncodeTextproto writes a Perfetto trace from its text form (a
// .textproto file, as Perfetto's diff tests keep their traces) with protoc
// and Perfetto's whole schema (PerfettoProto); the test skips without
// them, as Protoc and PerfettoProto say.
func EncodeTextproto(t testing.TB, path string) []byte {
	t.Helper()
	protoc := Protoc(t)
	dir := PerfettoProto(t)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(protoc, "--proto_path="+dir, "--encode=perfetto.protos.Trace", "perfetto_trace.proto")
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("protoc --encode %s: %v\n%s", path, err, stderr.Bytes())
	}
	return out
}

// PerfettoProto is the folder of Perfetto's whole trace schema,
// ../shared/tools/perfetto-proto (perfetto_trace.proto), or the one beside
// $ATRACE2_TRACE_PROCESSOR, for protoc; the test skips when it is not
// there, failing under ATRACE2_PROTOC=require.
func PerfettoProto(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "..", "shared", "tools", "perfetto-proto")
	if tp := os.Getenv("ATRACE2_TRACE_PROCESSOR"); tp != "" {
		if _, err := os.Stat(dir); err != nil {
			dir = filepath.Join(filepath.Dir(tp), "perfetto-proto")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "perfetto_trace.proto")); err != nil {
		msg := fmt.Sprintf("Perfetto's schema not found (%v)", err)
		if os.Getenv("ATRACE2_PROTOC") == "require" {
			t.Fatal(msg + " (ATRACE2_PROTOC=require)")
		}
		t.Skip(msg)
	}
	return dir
}
