package speedscope

import (
	"encoding/binary"
	"strconv"
)

// decimal is a non-decreasing number kept as decimal digits. Times in a
// profile only grow, mostly by a few units, so advancing touches the last
// digit or two instead of formatting the whole number for every event with
// strconv.AppendUint (BenchmarkDecoder, BenchmarkSpeedscope).
type decimal struct {
	v     uint64
	d     [20]byte // d[start:] holds v's digits (20 fit any uint64), and 0s before
	start int
}

func (c *decimal) digits() []byte {
	if c.start == 0 && c.v == 0 {
		c.d[len(c.d)-1], c.start = '0', len(c.d)-1 // the zero value
	}
	return c.d[c.start:]
}

// step sets the number to v and reports true when that changes only the
// last two digits, the common case (events are mostly microseconds apart);
// it is small enough to be inlined (as of Go 1.26), and advance does the
// rest.
func (c *decimal) step(v uint64) bool {
	// The last eight digits are read and written as one word, as the writer
	// copies them: a byte store under a wider load stalls the load until
	// the store is done (BenchmarkDecoder, FuzzDecimal).
	d := v - c.v
	if d >= 10 {
		return false
	}
	w := binary.LittleEndian.Uint64(c.d[len(c.d)-8:])
	switch {
	case byte(w>>56)-'0'+byte(d) <= 9: // the zero value's last byte, 0, wraps above
	case byte(w>>48)-'0' < 9: // a ten more (a 0 before the digits wraps too)
		// The last digit drops by ten (below '0' until d is added below)
		// and the one before goes up by one.
		w = w + 1<<48 - 10<<56
	default:
		return false
	}
	binary.LittleEndian.PutUint64(c.d[len(c.d)-8:], w+d<<56)
	c.v = v
	return true
}

// advance sets the number to v. Growing by less than 2^20 adds digit by
// digit from the right; anything else formats v afresh.
func (c *decimal) advance(v uint64) {
	if c.start == 0 || v < c.v || v-c.v >= 1<<20 {
		var tmp [20]byte
		n := len(strconv.AppendUint(tmp[:0], v, 10))
		c.start = len(c.d) - n
		clear(c.d[:c.start]) // no digit before the number: step relies on it
		copy(c.d[c.start:], tmp[:n])
		c.v = v
		return
	}
	c.add(v)
}

// add sets the number to v, which is above it, adding digit by digit from
// the right. It calls nothing and is inlined (as of Go 1.26): the writer's fast loop takes
// it for the steps that step does not.
func (c *decimal) add(v uint64) {
	carry := v - c.v
	c.v = v
	for i := len(c.d) - 1; carry > 0; i-- {
		if i < c.start {
			c.start, c.d[i] = i, '0'
		}
		s := uint64(c.d[i]-'0') + carry%10
		carry /= 10
		if s >= 10 {
			s -= 10
			carry++
		}
		c.d[i] = byte('0' + s)
	}
}
