package folded

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/stacks"
)

// lineTree is the folded lines of a call tree as a tree of names: call
// stacks whose lines are equal (overloads of one name, orphan and ordinary
// calls, threads of one name and tid, every thread with NoThread) are one
// node. Writing it depth first in the right child order gives the lines
// sorted, without holding the lines, which on a long trace take many times
// the memory of the line tree (BenchmarkFolded reports both paths'
// allocations).
type lineTree struct {
	names []string // frame and thread names, by name id
	ids   map[string]int32
	nodes []lineNode
	child map[lineEdge]int32
}

type lineNode struct {
	name  int32 // name id; the top node has none
	sum   int64 // exclusive ns of the line
	first int32 // first child, -1 for none
	next  int32 // next sibling, -1 for none
}

type lineEdge struct{ parent, name int32 }

// newLineTree folds a call tree on the clock of opt (clockOf).
func newLineTree(tree *stacks.Tree, opt Options) *lineTree {
	t := tree.Trace()
	c := clockOf(tree, opt)
	nodes := tree.Nodes()
	lt := &lineTree{ids: make(map[string]int32), nodes: make([]lineNode, 1, len(nodes)+1)}
	lt.nodes[0] = lineNode{name: -1, first: -1, next: -1}
	frameName, framesShare := lt.intern(len(t.Frames), func(i int) string { return clean(t.Frames[i].Name) })
	roots := threadFrames(tree)
	threadName, threadsShare := lt.intern(len(t.Threads), func(i int) string { return roots[i] })
	// Two call-tree nodes have one line only if frames or threads share a
	// name, if the threads are left out (or some are: the stacks of no
	// known thread), or through an orphan frame (which has the line of an
	// ordinary call). Without those, every node gets a line node of its
	// own, and the child index, a large part of this function's time, is
	// not needed (BenchmarkFolded).
	_, someNoThread := tree.UnknownThread()
	merge := framesShare || threadsShare || opt.NoThread || someNoThread || hasOrphan(nodes)
	if merge {
		lt.child = make(map[lineEdge]int32, len(nodes))
	}
	at := make([]int32, len(nodes)) // call tree node → line tree node
	for i := range nodes {
		n := &nodes[i]
		switch {
		case !n.IsRoot():
			at[i] = lt.add(at[n.Parent], frameName[n.Frame])
		case opt.NoThread || roots[n.Thread] == "":
			at[i] = 0
		default:
			at[i] = lt.add(0, threadName[n.Thread])
		}
		if !n.IsRoot() {
			lt.nodes[at[i]].sum += nodeValue(tree, i, c)
		}
	}
	return lt
}

func hasOrphan(nodes []stacks.Node) bool {
	for i := range nodes {
		if nodes[i].Orphan {
			return true
		}
	}
	return false
}

// intern gives n names ids, equal names one id; shared reports that a name
// had an id already.
func (lt *lineTree) intern(n int, name func(int) string) (ids []int32, shared bool) {
	ids = make([]int32, n)
	for i := range ids {
		s := name(i)
		id, ok := lt.ids[s]
		if !ok {
			id = int32(len(lt.names))
			lt.names = append(lt.names, s)
			lt.ids[s] = id
		}
		shared = shared || ok
		ids[i] = id
	}
	return ids, shared
}

// add returns the child of parent with a name, creating it; without the
// child index (see newLineTree), always a new one.
func (lt *lineTree) add(parent, name int32) int32 {
	e := lineEdge{parent, name}
	if lt.child != nil {
		if id, ok := lt.child[e]; ok {
			return id
		}
	}
	id := int32(len(lt.nodes))
	lt.nodes = append(lt.nodes, lineNode{name: name, first: -1, next: lt.nodes[parent].first})
	lt.nodes[parent].first = id
	if lt.child != nil {
		lt.child[e] = id
	}
	return id
}

// write writes the lines whose value rounds above 0, sorted as strings,
// in 64 KiB writes.
//
// Why depth first works: a node's line is its parent's line, ';' and its
// name, and names hold no ';'. So among siblings, a node's own line sorts
// by its name, and the lines below it, which all start with its name and
// ';', sort together as one block keyed by name+";". Sorting each node's
// children's lines and blocks by those keys and expanding the blocks in
// place gives the order of a full sort.
func (lt *lineTree) write(w io.Writer, value func(int64) int64) error {
	lt.child, lt.ids = nil, nil
	lw := lineWriter{w: w, value: value, rank: lt.keyRanks()}
	lw.walk(lt)
	return lw.flush()
}

// keyRanks ranks the sort keys of every name: name id i's own line has
// key 2i, its block 2i+1, and rank[key] is the key's place among all keys
// sorted as strings. Children then sort as integers, without comparing
// strings or making a name+";" string per block.
func (lt *lineTree) keyRanks() []int32 {
	keys := make([]string, 2*len(lt.names))
	order := make([]int32, len(keys))
	for i, name := range lt.names {
		keys[2*i], keys[2*i+1] = name, name+";"
	}
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
	rank := make([]int32, len(keys))
	for r, k := range order {
		rank[k] = int32(r)
	}
	return rank
}

type lineWriter struct {
	w     io.Writer
	value func(int64) int64
	rank  []int32  // by key (see keyRanks)
	items []uint64 // the children being written, nested (see lineItem)
	line  []byte   // the current node's line
	out   []byte
	err   error
}

// lineItem packs a child to write: its key's rank (which orders the items),
// whether it stands for its block, and its node.
func lineItem(rank int32, block bool, node int32) uint64 {
	it := uint64(rank)<<32 | uint64(node)
	if block {
		it |= 1 << 31
	}
	return it
}

// lineLevel is a node whose children are being written: its items are
// lw.items[start:end], the next to write at next, and its line is
// lw.line[:base].
type lineLevel struct{ start, next, end, base int }

// walk writes the lines below the top node, depth first. It keeps the path
// in a slice, not on the goroutine's stack, as a trace sets the depth
// (TestDeepLines), and stops at the first write error.
func (lw *lineWriter) walk(lt *lineTree) {
	path := []lineLevel{lw.open(lt, 0)}
	for len(path) > 0 && lw.err == nil {
		lv := &path[len(path)-1]
		if lv.next == lv.end {
			lw.line = lw.line[:lv.base]
			lw.items = lw.items[:lv.start]
			path = path[:len(path)-1]
			continue
		}
		it := lw.items[lv.next] // lw.items may grow below; a level's items stay
		lv.next++
		node, block := int32(it&(1<<31-1)), it&(1<<31) != 0
		lw.line = lw.line[:lv.base]
		if lv.base > 0 {
			lw.line = append(lw.line, ';')
		}
		lw.line = append(lw.line, lt.names[lt.nodes[node].name]...)
		if block {
			path = append(path, lw.open(lt, node))
			continue
		}
		if v := lw.value(lt.nodes[node].sum); v > 0 {
			lw.out = append(lw.out, lw.line...)
			lw.out = append(lw.out, ' ')
			lw.out = strconv.AppendInt(lw.out, v, 10)
			lw.out = append(lw.out, '\n')
			if len(lw.out) >= 64<<10 {
				lw.flush()
			}
		}
	}
}

// open puts the children of node id, sorted, on lw.items, and returns
// the level that writes them below the current line.
func (lw *lineWriter) open(lt *lineTree, id int32) lineLevel {
	start := len(lw.items)
	for c := lt.nodes[id].first; c >= 0; c = lt.nodes[c].next {
		key := 2 * lt.nodes[c].name
		lw.items = append(lw.items, lineItem(lw.rank[key], false, c))
		if lt.nodes[c].first >= 0 {
			lw.items = append(lw.items, lineItem(lw.rank[key+1], true, c))
		}
	}
	end := len(lw.items)
	slices.Sort(lw.items[start:end])
	return lineLevel{start: start, next: start, end: end, base: len(lw.line)}
}

func (lw *lineWriter) flush() error {
	if lw.err == nil && len(lw.out) > 0 {
		if _, err := lw.w.Write(lw.out); err != nil {
			lw.err = fmt.Errorf("folded: %w", err)
		}
	}
	lw.out = lw.out[:0]
	return lw.err
}
