package samples

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
)

// This file reads the profile files of ART's BackgroundMethodSamplingProfiler
// (Android 5.x, runtime/profiler.cc, ProfileSampleResults::Write; removed in
// 2016). Line 1 is "<samples>/<null methods>/<boot methods>"; every other
// line is a method, in method mode
//
//	void com.foo.Bar.baz(int, java.lang.String)/57/212
//
// (PrettyMethod, count, code size in code units) and in bounded-stack mode
//
//	<method>/<total>/<size>/[<dexPc>:<count>:<caller>@<pc>@<caller2>@<pc2>#…]
//
// where each "#" entry is one call chain ending in the method, with its
// callers innermost first. ART's own reader (ProfileFile::LoadFile) accepts
// exactly these two shapes.

// sniffART recognises the summary line and, when the head holds one, the
// shape of the first method line.
func sniffART(head []byte) Format {
	first, rest, _ := bytes.Cut(head, []byte("\n"))
	if _, err := artSummary(string(bytes.TrimSuffix(first, []byte("\r")))); err != nil {
		return Unknown
	}
	second, _, complete := bytes.Cut(rest, []byte("\n"))
	second = bytes.TrimSuffix(second, []byte("\r"))
	if !complete || len(second) == 0 {
		if bytes.Contains(second, []byte("/[")) {
			return ARTProfileBoundedStack
		}
		return ARTProfileMethod
	}
	switch f := strings.Split(string(second), "/"); len(f) {
	case 3:
		return ARTProfileMethod
	case 4:
		return ARTProfileBoundedStack
	}
	return Unknown
}

// artSummary parses line 1 into its three counts.
func artSummary(s string) ([3]int64, error) {
	var n [3]int64
	f := strings.Split(s, "/")
	if len(f) != 3 {
		return n, errors.New("expected <samples>/<null methods>/<boot methods> as the first line")
	}
	for i, v := range f {
		var err error
		if n[i], err = strconv.ParseInt(v, 10, 64); err != nil || n[i] < 0 {
			return n, errors.New("expected <samples>/<null methods>/<boot methods> as the first line, found " + strconv.Quote(clip(s)))
		}
	}
	return n, nil
}

type artReader struct {
	l      *lines
	b      *builder
	stacks map[string]int // sample index by stack, to merge equal stacks
	byText map[string]int // frame index by PrettyMethod text, to parse each once
	key    []byte
	over   int // lines whose call chains count more than their total
	// all is the sum of every count: the samples' and line 1's null and
	// boot-image methods'. It may not overflow (Profile's guarantee).
	all int64
}

func readART(l *lines) (*Profile, error) {
	r := &artReader{l: l, b: newBuilder(ARTProfileMethod), stacks: map[string]int{}, byText: map[string]int{}}
	for l.next() && len(l.raw) == 0 {
		// Sniff skipped leading blank lines too.
	}
	if l.err != nil {
		return nil, l.err
	}
	sum, err := artSummary(l.text())
	if err != nil {
		return nil, l.errorf("%v", err)
	}
	r.all = sum[1]
	if !addCount(&r.all, sum[2]) {
		return nil, l.errorf("%s", errAllCounts)
	}
	for l.next() {
		if len(l.raw) == 0 {
			continue
		}
		if err := r.line(l.text()); err != nil {
			return nil, err
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return r.finish(sum), nil
}

func (r *artReader) finish(sum [3]int64) *Profile {
	p := &r.b.p
	p.Total = sum[0]
	p.DepthLimited = p.Format == ARTProfileBoundedStack
	for i, why := range [...]string{1: "null method (no method on the stack)", 2: "boot-image method (ART does not profile these)"} {
		if i > 0 && sum[i] > 0 {
			p.Unlisted = append(p.Unlisted, Unlisted{Reason: why, Count: sum[i]})
		}
	}
	if n := p.SampleCount(); n != p.Total {
		r.b.note("the method lines add up to %d samples and line 1 says %d (ART merges each run into the previous file)", n, p.Total)
	}
	if r.over > 0 {
		r.b.note("on %d lines the call chains count more samples than the method's total; the chains were kept", r.over)
	}
	return r.b.finish()
}

func (r *artReader) line(s string) error {
	f := strings.Split(s, "/")
	if len(f) != 3 && len(f) != 4 || f[0] == "" {
		return r.l.errorf("expected <method>/<count>/<size> or <method>/<count>/<size>/[<dexPc>:<count>:<context>#…], found %q", clip(s))
	}
	total, err1 := strconv.ParseInt(f[1], 10, 64)
	_, err2 := strconv.ParseUint(f[2], 10, 32)
	if err1 != nil || err2 != nil || total < 0 {
		return r.l.errorf("expected <method>/<count>/<size> with decimal count and size, found %q", clip(s))
	}
	leaf := r.frame(f[0])
	if len(f) == 3 {
		return r.add([]int{leaf}, total)
	}
	r.b.p.Format = ARTProfileBoundedStack
	chained, err := r.chains(f[3], leaf)
	if err != nil {
		return err
	}
	if total > chained {
		// Counts merged from a method-mode run have no chain.
		return r.add([]int{leaf}, total-chained)
	}
	if total < chained {
		r.over++
	}
	return nil
}

// chains adds the samples of "[<dexPc>:<count>:<context>#…]" and returns
// their sum. Dex pcs are checked and dropped: without the dex file they
// name no source line, and keeping them would split one method into a
// frame per pc.
func (r *artReader) chains(list string, leaf int) (int64, error) {
	inner, ok := strings.CutPrefix(list, "[")
	if inner, ok2 := strings.CutSuffix(inner, "]"); ok && ok2 {
		list = inner
	} else {
		return 0, r.l.errorf("expected [<dexPc>:<count>:<context>#…] as the fourth field, found %q", clip(list))
	}
	var sum int64
	for _, e := range strings.Split(list, "#") {
		if e == "" {
			continue // ART's Split skips empty fields
		}
		part := strings.Split(e, ":")
		_, err1 := strconv.ParseUint(part[0], 10, 32)
		var n int64
		var err2 error = errors.New("missing count")
		if len(part) >= 2 {
			n, err2 = strconv.ParseInt(part[1], 10, 64)
		}
		if len(part) > 3 || err1 != nil || err2 != nil || n < 0 {
			return 0, r.l.errorf("expected <dexPc>:<count>:<context> in the call chains, found %q", clip(e))
		}
		stack, err := r.context(part, leaf)
		if err != nil {
			return 0, err
		}
		if !addCount(&sum, n) {
			return 0, r.l.errorf("call chain counts overflow")
		}
		if err := r.add(stack, n); err != nil {
			return 0, err
		}
	}
	return sum, nil
}

// context turns "caller@pc@caller2@pc2…" (innermost caller first) into a
// root-first stack ending at leaf.
func (r *artReader) context(part []string, leaf int) ([]int, error) {
	if len(part) < 3 || part[2] == "" {
		return []int{leaf}, nil
	}
	c := strings.Split(part[2], "@")
	if len(c)%2 != 0 || len(c)/2 >= maxStack {
		return nil, r.l.errorf("expected <method>@<dexPc> pairs in the context %q", clip(part[2]))
	}
	stack := make([]int, len(c)/2+1)
	stack[len(stack)-1] = leaf
	for i := 0; i < len(c); i += 2 {
		if _, err := strconv.ParseUint(c[i+1], 10, 32); err != nil || c[i] == "" {
			return nil, r.l.errorf("expected <method>@<dexPc> pairs in the context %q", clip(part[2]))
		}
		stack[len(stack)-2-i/2] = r.frame(c[i])
	}
	return stack, nil
}

// add counts n samples of stack, merging with an equal stack seen before.
func (r *artReader) add(stack []int, n int64) error {
	r.key = r.key[:0]
	for _, f := range stack {
		r.key = binary.AppendUvarint(r.key, uint64(f))
	}
	i, ok := r.stacks[string(r.key)]
	if !ok {
		i = len(r.b.p.Samples)
		r.stacks[string(r.key)] = i
		r.b.p.Samples = append(r.b.p.Samples, Sample{Thread: -1, Stack: stack})
	}
	if !addCount(&r.b.p.Samples[i].Count, n) {
		return r.l.errorf("the counts of %s overflow", r.b.table[stack[len(stack)-1]].Name)
	}
	if !addCount(&r.all, n) {
		return r.l.errorf("%s", errAllCounts)
	}
	return nil
}

// errAllCounts says the counts of a file add up to more than a Profile
// holds.
const errAllCounts = "the sample counts add up to more than 9223372036854775807"

// frame returns the index of the frame a PrettyMethod text names.
func (r *artReader) frame(pretty string) int {
	i, ok := r.byText[pretty]
	if !ok {
		i = r.b.frame(prettyFrame(pretty))
		r.byText[pretty] = i
	}
	return i
}
