package pftrace

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/atrace2/atrace2/internal/pbread"
)

// Limits that keep hostile input from costing more than its size.
const (
	// maxPacket is the largest packet (and the most a compressed_packets
	// field may decompress to) the reader accepts. Perfetto's own packets
	// stay far below: the service splits its buffers in chunks of at most
	// a few hundred KiB, and compresses packets in bundles of about 500 KiB.
	maxPacket = 256 << 20
	readChunk = 64 << 10
)

// source frames the top-level fields of a Trace message read from r: each
// packet is field 1, length-delimited; other fields are skipped, as
// trace_processor's tokenizer skips them.
type source struct {
	r    io.Reader
	gzip bool

	buf        []byte
	start, end int   // unread bytes are buf[start:end]
	off        int64 // stream offset of buf[start]
	eof        bool
	err        error // a read error other than the end of the stream
	lost       int64 // bytes of a packet cut by the end of the stream
}

// newSource returns a source over r, decompressing it when it starts with
// gzip's magic number.
func newSource(r io.Reader) (*source, error) {
	s := &source{r: r, buf: make([]byte, readChunk)}
	s.fill(2)
	if s.err != nil {
		return nil, s.err
	}
	if head := s.buf[s.start:s.end]; len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(io.MultiReader(bytes.NewReader(slices.Clone(head)), r))
		if err != nil {
			return nil, fmt.Errorf("%w: reading the gzip header: %v", ErrNotPerfetto, err)
		}
		s.r, s.gzip = zr, true
		s.start, s.end, s.eof = 0, 0, false
	}
	return s, nil
}

// fill reads until at least n bytes are unread or the stream ends; it
// reports whether n bytes are there. The buffer grows by doubling only as
// data comes, so that a length field claiming more than the input holds
// costs no more memory than the input.
func (s *source) fill(n int) bool {
	for s.end-s.start < n && !s.eof {
		if s.end == len(s.buf) {
			if s.start > 0 {
				copy(s.buf, s.buf[s.start:s.end])
				s.end -= s.start
				s.start = 0
			} else {
				nb := make([]byte, 2*len(s.buf))
				copy(nb, s.buf[:s.end])
				s.buf = nb
			}
		}
		k, err := s.r.Read(s.buf[s.end:])
		s.end += k
		switch {
		case err == io.EOF:
			s.eof = true
		case errors.Is(err, io.ErrUnexpectedEOF):
			s.eof = true // a gzip stream cut short: read what came
		case err != nil:
			s.eof, s.err = true, err
		}
	}
	return s.end-s.start >= n
}

// next returns the next packet's bytes (valid until the next call) and the
// stream offset of its first byte, or ok == false at the end of the stream,
// where s.lost counts the bytes of a packet the end cut short.
func (s *source) next() (pkt []byte, off int64, ok bool, err error) {
	for {
		s.fill(20) // a tag and a length take at most 20 bytes
		avail := s.buf[s.start:s.end]
		if len(avail) == 0 {
			return nil, 0, false, s.err
		}
		tag, n := pbread.Uvarint(avail)
		if n <= 0 {
			if n == 0 && s.eof {
				s.lost = int64(len(avail))
				return nil, 0, false, s.err
			}
			return nil, 0, false, s.errorf(0, "malformed field tag of the trace")
		}
		num, typ := tag>>3, tag&7
		var size uint64
		hdr := n
		switch typ {
		case pbread.Varint:
			_, k := pbread.Uvarint(avail[n:])
			if k <= 0 {
				return s.cut(k, "malformed varint")
			}
			hdr += k
		case pbread.Fixed64:
			size = 8
		case pbread.Fixed32:
			size = 4
		case pbread.Bytes:
			l, k := pbread.Uvarint(avail[n:])
			if k <= 0 {
				return s.cut(k, "malformed length")
			}
			hdr += k
			size = l
		default:
			return nil, 0, false, s.errorf(0, fmt.Sprintf("field %d of the trace has wire type %d", num, typ))
		}
		if size > maxPacket {
			return nil, 0, false, s.errorf(0, fmt.Sprintf("a packet of %d bytes, more than the %d this reader accepts", size, maxPacket))
		}
		total := hdr + int(size)
		if !s.fill(total) {
			s.lost = int64(s.end - s.start)
			s.start = s.end
			return nil, 0, false, s.err
		}
		body := s.buf[s.start+hdr : s.start+total]
		bodyOff := s.off + int64(hdr)
		s.start += total
		s.off += int64(total)
		if num != 1 || typ != pbread.Bytes || size == 0 {
			continue // not a packet, or an empty one: skipped
		}
		return body, bodyOff, true, nil
	}
}

// cut handles a varint that could not be read after a tag: the end of the
// stream (k == 0 and nothing more to read) or malformed bytes.
func (s *source) cut(k int, what string) ([]byte, int64, bool, error) {
	if k == 0 && s.eof {
		s.lost = int64(s.end - s.start)
		s.start = s.end
		return nil, 0, false, s.err
	}
	return nil, 0, false, s.errorf(0, what+" in a field of the trace")
}

func (s *source) errorf(rel int64, msg string) error {
	return &FormatError{Off: s.off + rel, Msg: msg, Gzip: s.gzip, Bundle: -1}
}

// inflater decompresses compressed_packets fields, reusing its buffers.
type inflater struct {
	out bytes.Buffer
	zr  io.ReadCloser
	fr  io.ReadCloser
}

// inflate decompresses a compressed_packets field: zlib (what Perfetto's
// service writes: deflate with zlib's header), gzip or raw deflate, as
// zlib's inflate with automatic header detection accepts. The result is
// valid until the next call.
func (z *inflater) inflate(b []byte) ([]byte, error) {
	z.out.Reset()
	var r io.Reader
	var err error
	switch {
	case len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b:
		r, err = gzip.NewReader(bytes.NewReader(b))
	case len(b) >= 2 && b[0]&0x0f == 8 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0:
		if z.zr == nil {
			z.zr, err = zlib.NewReader(bytes.NewReader(b))
		} else {
			err = z.zr.(zlib.Resetter).Reset(bytes.NewReader(b), nil)
		}
		r = z.zr
	default:
		if z.fr == nil {
			z.fr = flate.NewReader(bytes.NewReader(b))
		} else {
			err = z.fr.(flate.Resetter).Reset(bytes.NewReader(b), nil)
		}
		r = z.fr
	}
	if err != nil {
		return nil, err
	}
	n, err := z.out.ReadFrom(io.LimitReader(r, maxPacket+1))
	if err != nil {
		return nil, err
	}
	if n > maxPacket {
		return nil, fmt.Errorf("they decompress to more than %d bytes", maxPacket)
	}
	return z.out.Bytes(), nil
}
