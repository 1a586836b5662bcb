package stacks

// edgeTable maps a child's key to its node: an open-addressing hash table
// with linear probing, key and value side by side in one 16-byte slot, so
// that a lookup costs about one cache miss where a Go map takes more. On
// Go 1.26 a Swiss-table map still made the largest trees' commands slower
// by more than the project's 3 % bar (docs/performance.md); the harness's
// 1 GB top and folded runs, paired with -base, guard the choice. Lookups reach the table only when neither of
// the node's two recent children is the one (buildNode.recent): a small share
// of the enters, new stacks included. It holds the children of nodes with
// three or more (buildNode.indexed) and the orphan frames.
type edgeTable struct {
	slots []edgeSlot // a power of two, at most half full
	n     int
	shift uint // 64 - log2(len(slots))
}

// edgeSlot holds one edge; id 0 marks an empty slot (node 0 is thread 0's
// root, never a child).
type edgeSlot struct {
	key edge
	id  NodeID
}

func newEdgeTable() *edgeTable {
	t := &edgeTable{}
	t.resize(1 << 10)
	return t
}

// home is where a key's probe starts: Fibonacci hashing.
func (t *edgeTable) home(k edge) int {
	return int(uint64(k) * 0x9E3779B97F4A7C15 >> t.shift)
}

// get returns the node of an edge, or 0 and false.
func (t *edgeTable) get(k edge) (NodeID, bool) {
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.id == 0 {
			return 0, false
		}
		if s.key == k {
			return s.id, true
		}
	}
}

// put sets the node of an edge; id must not be 0.
func (t *edgeTable) put(k edge, id NodeID) {
	if 2*(t.n+1) > len(t.slots) {
		t.resize(2 * len(t.slots))
	}
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.id == 0 {
			s.key, s.id = k, id
			t.n++
			return
		}
		if s.key == k {
			s.id = id
			return
		}
	}
}

// delete removes an edge, moving later entries of its probe run back so
// that no lookup stops early at the hole.
func (t *edgeTable) delete(k edge) {
	mask := len(t.slots) - 1
	i := t.home(k)
	for ; ; i = (i + 1) & mask {
		if t.slots[i].id == 0 {
			return
		}
		if t.slots[i].key == k {
			break
		}
	}
	t.n--
	for j := (i + 1) & mask; t.slots[j].id != 0; j = (j + 1) & mask {
		// The entry at j may fill the hole at i unless its home lies
		// cyclically in (i, j].
		if h := t.home(t.slots[j].key); (j-h)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = edgeSlot{}
}

func (t *edgeTable) resize(n int) {
	old := t.slots
	t.slots = make([]edgeSlot, n)
	t.n = 0
	t.shift = 64
	for m := n; m > 1; m >>= 1 {
		t.shift--
	}
	for _, s := range old {
		if s.id != 0 {
			t.put(s.key, s.id)
		}
	}
}
