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
// sorted, without holding the lines: at 1 GB a trace's lines took about
// 130 MB, its line tree takes about 10.
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

// newLineTree folds a call tree on the trace's main clock.
func newLineTree(a *stacks.Aggregator, opt Options) *lineTree {
	t := a.Trace()
	cpu := !t.HasWall && t.HasCPU
	lt := &lineTree{ids: make(map[string]int32), child: make(map[lineEdge]int32)}
	lt.nodes = append(lt.nodes, lineNode{name: -1, first: -1, next: -1})
	frameName := lt.intern(len(t.Frames), func(i int) string { return clean(t.Frames[i].Name) })
	threadName := lt.intern(len(t.Threads), func(i int) string { return ThreadFrame(&t.Threads[i]) })
	nodes := a.Nodes()
	at := make([]int32, len(nodes)) // call tree node → line tree node
	for i := range nodes {
		n := &nodes[i]
		switch {
		case !n.IsRoot():
			at[i] = lt.add(at[n.Parent], frameName[n.Frame])
		case opt.NoThread:
			at[i] = 0
		default:
			at[i] = lt.add(0, threadName[n.Thread])
		}
		if !n.IsRoot() {
			v := n.Wall
			if cpu {
				v = n.CPU
			}
			lt.nodes[at[i]].sum += v
		}
	}
	return lt
}

// intern gives n names ids, equal names one id.
func (lt *lineTree) intern(n int, name func(int) string) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		s := name(i)
		id, ok := lt.ids[s]
		if !ok {
			id = int32(len(lt.names))
			lt.names = append(lt.names, s)
			lt.ids[s] = id
		}
		ids[i] = id
	}
	return ids
}

// add returns the child of parent with a name, creating it.
func (lt *lineTree) add(parent, name int32) int32 {
	e := lineEdge{parent, name}
	if id, ok := lt.child[e]; ok {
		return id
	}
	id := int32(len(lt.nodes))
	lt.nodes = append(lt.nodes, lineNode{name: name, first: -1, next: lt.nodes[parent].first})
	lt.nodes[parent].first = id
	lt.child[e] = id
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
	lw := lineWriter{w: w, value: value}
	lw.node(lt, 0)
	return lw.flush()
}

type lineWriter struct {
	w     io.Writer
	value func(int64) int64
	line  []byte // the current node's line
	out   []byte
	err   error
}

type lineItem struct {
	key   string
	node  int32
	block bool // the lines below node, not its own
}

// node writes the lines below node id, whose line is lw.line.
func (lw *lineWriter) node(lt *lineTree, id int32) {
	var items []lineItem
	for c := lt.nodes[id].first; c >= 0; c = lt.nodes[c].next {
		name := lt.names[lt.nodes[c].name]
		items = append(items, lineItem{key: name, node: c})
		if lt.nodes[c].first >= 0 {
			items = append(items, lineItem{key: name + ";", node: c, block: true})
		}
	}
	slices.SortFunc(items, func(a, b lineItem) int { return strings.Compare(a.key, b.key) })
	base := len(lw.line)
	for _, it := range items {
		lw.line = lw.line[:base]
		if base > 0 {
			lw.line = append(lw.line, ';')
		}
		lw.line = append(lw.line, lt.names[lt.nodes[it.node].name]...)
		if it.block {
			lw.node(lt, it.node)
			continue
		}
		if v := lw.value(lt.nodes[it.node].sum); v > 0 {
			lw.out = append(lw.out, lw.line...)
			lw.out = append(lw.out, ' ')
			lw.out = strconv.AppendInt(lw.out, v, 10)
			lw.out = append(lw.out, '\n')
			if len(lw.out) >= 64<<10 {
				lw.flush()
			}
		}
	}
	lw.line = lw.line[:base]
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
