package pprofout

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/google/pprof/profile"
	"github.com/klauspost/compress/gzip"
)

// Write builds the profile of every trace added so far, checks it and
// writes it gzipped, as Write(w, b.Profile()) would, byte for byte, without
// a profile.Sample per sample: pprof's encoder holds, per sample, the
// Sample, its location and label lists and their encoded copies, which for a
// large trace would be most of the command's peak memory (BenchmarkPprof
// reports the allocations).
//
// How: pprof's library builds and checks a profile that holds only the
// first sample of each label set. Its string table is then the full
// profile's (strings enter the table in order of first use, and every
// string a sample adds is in its label set), so the library's encoding of
// everything but the samples can be copied, and the samples encoded here
// in between, as the library would encode them. Call it once, after the
// last Add, instead of Profile.
func (b *Builder) Write(w io.Writer) error {
	samples := b.samples
	meta, err := b.build(true)
	if err != nil {
		return err
	}
	if err := meta.CheckValid(); err != nil {
		return fmt.Errorf("pprof: invariant violation: %w", err)
	}
	raw, err := encode(meta)
	if err != nil {
		return err
	}
	strs, err := stringIndex(raw)
	if err != nil {
		return err
	}
	labels, err := b.encodedLabels(strs)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, compression)
	if err != nil {
		return err
	}
	e := sampleEncoder{b: b, labels: labels, clocks: b.commonClocks()}
	if err := e.writeAround(zw, raw, samples); err != nil {
		return fmt.Errorf("pprof: writing: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("pprof: writing: %w", err)
	}
	return nil
}

// compression is the gzip level of written profiles: the fastest, because
// profiles are small next to the traces they come from and the default
// level costs a large share of a conversion for a slightly smaller file.
// The writer is klauspost's (whose reader opens .gz traces), faster than
// the standard library's at this level. BenchmarkPprof guards both choices
// (docs/performance.md has the measurements).
const compression = gzip.BestSpeed

// firstOfLabels returns the first sample of each label set, in order.
func (b *Builder) firstOfLabels() []sampleAcc {
	seen := make([]bool, len(b.labels))
	var first []sampleAcc
	for _, s := range b.samples {
		if !seen[s.label] {
			seen[s.label] = true
			first = append(first, s)
		}
	}
	return first
}

// encode is the library's uncompressed encoding of p.
func encode(p *profile.Profile) ([]byte, error) {
	var buf bytesWriter
	if err := p.WriteUncompressed(&buf); err != nil {
		return nil, fmt.Errorf("pprof: encoding: %w", err)
	}
	return buf, nil
}

type bytesWriter []byte

func (w *bytesWriter) Write(p []byte) (int, error) {
	*w = append(*w, p...)
	return len(p), nil
}

// Top-level fields of profile.proto's Profile message that Write handles.
const (
	fieldSample      = 2
	fieldMapping     = 3
	fieldStringTable = 6
)

// topField is one top-level field of an encoded message.
type topField struct {
	num   int
	start int // first byte of the tag
	end   int // one past the last byte of the value
	value []byte
}

// nextField reads the top-level field at b[off:].
func nextField(b []byte, off int) (topField, error) {
	tag, n := binary.Uvarint(b[off:])
	if n <= 0 {
		return topField{}, fmt.Errorf("pprof: invariant violation: bad tag at %d", off)
	}
	f := topField{num: int(tag >> 3), start: off}
	off += n
	switch tag & 7 {
	case 0: // varint
		_, m := binary.Uvarint(b[off:])
		if m <= 0 {
			return f, fmt.Errorf("pprof: invariant violation: bad varint at %d", off)
		}
		f.value, f.end = b[off:off+m], off+m
	case 2: // length-delimited
		l, m := binary.Uvarint(b[off:])
		if m <= 0 || l > uint64(len(b)-off-m) {
			return f, fmt.Errorf("pprof: invariant violation: bad length at %d", off)
		}
		f.value, f.end = b[off+m:off+m+int(l)], off+m+int(l)
	default:
		return f, fmt.Errorf("pprof: invariant violation: wire type %d at %d", tag&7, off)
	}
	return f, nil
}

// stringIndex reads the string table of an encoded profile.
func stringIndex(raw []byte) (map[string]int64, error) {
	strs := map[string]int64{}
	n := int64(0)
	for off := 0; off < len(raw); {
		f, err := nextField(raw, off)
		if err != nil {
			return nil, err
		}
		if f.num == fieldStringTable {
			if _, ok := strs[string(f.value)]; !ok {
				strs[string(f.value)] = n
			}
			n++
		}
		off = f.end
	}
	return strs, nil
}

// encodedLabels encodes the label fields of each label set, in the order
// pprof's library writes them: string labels by key, then numeric ones.
func (b *Builder) encodedLabels(strs map[string]int64) ([][]byte, error) {
	idx := func(s string) (uint64, error) {
		i, ok := strs[s]
		if !ok {
			return 0, fmt.Errorf("pprof: invariant violation: %q is not in the string table", s)
		}
		return uint64(i), nil
	}
	out := make([][]byte, len(b.labels))
	for i, lk := range b.labels {
		var enc []byte
		type strLabel struct{ key, value string }
		ls := []strLabel{{LabelThread, lk.thread}}
		if lk.synth != "" {
			ls = []strLabel{{LabelSynthetic, lk.synth}, {LabelThread, lk.thread}} // sorted by key
		}
		for _, l := range ls {
			k, err := idx(l.key)
			if err != nil {
				return nil, err
			}
			v, err := idx(l.value)
			if err != nil {
				return nil, err
			}
			enc = appendLabel(enc, k, v, 0)
		}
		k, err := idx(LabelTID)
		if err != nil {
			return nil, err
		}
		out[i] = appendLabel(enc, k, 0, lk.tid)
	}
	return out, nil
}

// appendLabel appends one Label message as field 3 of a Sample; zero
// fields are left out, as the library does.
func appendLabel(b []byte, key, str uint64, num int64) []byte {
	var m []byte
	for _, f := range [...]struct {
		num int
		v   uint64
	}{{1, key}, {2, str}, {3, uint64(num)}} {
		if f.v != 0 {
			m = binary.AppendUvarint(m, uint64(f.num)<<3)
			m = binary.AppendUvarint(m, f.v)
		}
	}
	b = binary.AppendUvarint(b, 3<<3|2)
	b = binary.AppendUvarint(b, uint64(len(m)))
	return append(b, m...)
}

// sampleEncoder encodes samples as pprof's library does.
type sampleEncoder struct {
	b      *Builder
	labels [][]byte // by label id, the encoded label fields
	clocks clocks   // the time values the samples have
	msg    []byte   // one Sample message
	body   []byte   // scratch: a packed field's body
	out    []byte   // encoded samples not yet written
}

// writeAround writes raw with its sample fields replaced by samples.
func (e *sampleEncoder) writeAround(w io.Writer, raw []byte, samples []sampleAcc) error {
	off := 0
	for off < len(raw) {
		f, err := nextField(raw, off)
		if err != nil {
			return err
		}
		if f.num >= fieldMapping {
			break
		}
		if f.num != fieldSample {
			if _, err := w.Write(raw[f.start:f.end]); err != nil {
				return err
			}
		}
		off = f.end
	}
	for i := range samples {
		e.appendSample(&samples[i])
		if len(e.out) >= 64<<10 {
			if _, err := w.Write(e.out); err != nil {
				return err
			}
			e.out = e.out[:0]
		}
	}
	if _, err := w.Write(e.out); err != nil {
		return err
	}
	_, err := w.Write(raw[off:])
	return err
}

// appendSample encodes one Sample as field 2 of the Profile.
func (e *sampleEncoder) appendSample(s *sampleAcc) {
	m := e.appendLocations(e.msg[:0], s.path)
	var vals [3]uint64
	v := append(vals[:0], uint64(s.calls))
	if e.clocks.cpu {
		v = append(v, uint64(s.cpu))
	}
	if e.clocks.wall {
		v = append(v, uint64(s.wall))
	}
	m = e.appendRepeated(m, 2, v)
	m = append(m, e.labels[s.label]...)
	e.out = binary.AppendUvarint(e.out, fieldSample<<3|2)
	e.out = binary.AppendUvarint(e.out, uint64(len(m)))
	e.out = append(e.out, m...)
	e.msg = m
}

// appendLocations appends a sample's location_id field (1), leaf first:
// the path's chain of parents, walked once, in the order it is encoded. A
// location's id is its index in locList plus one (Builder.location).
func (e *sampleEncoder) appendLocations(m []byte, path int32) []byte {
	body, n := e.body[:0], 0
	for i := path; i >= 0; i = e.b.paths[i].parent {
		body = binary.AppendUvarint(body, uint64(e.b.paths[i].loc)+1)
		n++
	}
	e.body = body
	if n > 2 {
		m = binary.AppendUvarint(m, 1<<3|2)
		m = binary.AppendUvarint(m, uint64(len(body)))
		return append(m, body...)
	}
	// Two values or fewer are written unpacked, as the library does.
	for len(body) > 0 {
		v, k := binary.Uvarint(body)
		m = binary.AppendUvarint(m, 1<<3)
		m = binary.AppendUvarint(m, v)
		body = body[k:]
	}
	return m
}

// appendRepeated appends a repeated integer field: packed when it has more
// than two values, else one field per value (the library's rule).
func (e *sampleEncoder) appendRepeated(m []byte, num int, vs []uint64) []byte {
	if len(vs) <= 2 {
		for _, v := range vs {
			m = binary.AppendUvarint(m, uint64(num)<<3)
			m = binary.AppendUvarint(m, v)
		}
		return m
	}
	body := e.body[:0]
	for _, v := range vs {
		body = binary.AppendUvarint(body, v)
	}
	e.body = body
	m = binary.AppendUvarint(m, uint64(num)<<3|2)
	m = binary.AppendUvarint(m, uint64(len(body)))
	return append(m, body...)
}
