package pftrace

import (
	"errors"
	"fmt"
	"strings"

	"github.com/atrace2/atrace2/internal/profbuild"
	"github.com/atrace2/atrace2/internal/units"
)

// ErrNotPerfetto is wrapped by Read's error for input that is no Perfetto
// trace; callers branch on it to try other readers.
var ErrNotPerfetto = errors.New("not a Perfetto trace")

// FormatError reports malformed input at a byte offset: of the file, or of
// the decompressed stream when the file is gzip-compressed (Gzip), or of
// the bytes a compressed_packets field decompresses to (Bundle ≥ 0 is then
// the offset of that field's compressed bytes).
type FormatError struct {
	Off    int64
	Msg    string // what was expected or found, lower case
	Gzip   bool
	Bundle int64
}

func (e *FormatError) Error() string {
	where := ""
	if e.Gzip {
		where = " of the decompressed stream"
	}
	if e.Bundle >= 0 {
		return fmt.Sprintf("offset %d (%#x) of the packets compressed at offset %d (%#x)%s: %s",
			e.Off, e.Off, e.Bundle, e.Bundle, where, e.Msg)
	}
	return fmt.Sprintf("offset %d (%#x)%s: %s", e.Off, e.Off, where, e.Msg)
}

// ProcessError is Read's error when Options.Process names no process with
// stack samples; it lists those that have some.
type ProcessError = profbuild.ProcessError

// NoSamplesError is Read's error for a Perfetto trace without a CPU stack
// sample (ProfilingManager returns such captures when the profiler saw
// nothing): Error says in one line what the trace holds and that
// ui.perfetto.dev opens it.
type NoSamplesError struct {
	Packets int64  // packets read
	Kinds   []Kind // what they hold, most frequent first
	// Skipped counts stack samples the trace has but that could not be
	// read (a sequence's incremental state lost, a clock never related to
	// the trace clock); Reason says why, when Skipped > 0.
	Skipped int64
	Reason  string
	// ZstdBundles counts bundles of zstd-compressed packets, which this
	// reader does not decompress (the standard library has no zstd).
	ZstdBundles int64
}

// Kind is a kind of packet content and how many packets hold it.
type Kind struct {
	Name  string // for example "ftrace event bundles" ("ftrace event bundle" for a Count of 1)
	Count int64
}

func (e *NoSamplesError) Error() string {
	var b strings.Builder
	b.WriteString("no CPU stack samples: the trace holds ")
	if e.Packets == 0 {
		b.WriteString("no packet")
	} else {
		b.WriteString(units.Plural(e.Packets, "packet", "packets"))
		if len(e.Kinds) > 0 {
			b.WriteString(" (")
			for i, k := range e.Kinds {
				if i == 5 {
					fmt.Fprintf(&b, ", %s", units.Plural(int64(len(e.Kinds)-i), "more kind", "more kinds"))
					break
				}
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s %s", units.Count(k.Count), k.Name)
			}
			b.WriteString(")")
		}
	}
	if e.Skipped > 0 {
		fmt.Fprintf(&b, "; %s not be read (%s)", units.Plural(e.Skipped, "sample could", "samples could"), e.Reason)
	}
	if e.ZstdBundles > 0 {
		were := "were"
		if e.ZstdBundles == 1 {
			were = "was"
		}
		fmt.Fprintf(&b, "; %s of zstd-compressed packets %s not read", units.Plural(e.ZstdBundles, "bundle", "bundles"), were)
	}
	b.WriteString("; ui.perfetto.dev opens it")
	return b.String()
}
