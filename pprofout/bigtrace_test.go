package pprofout_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// Shape of the generated big trace: an app's worth of methods, a dozen
// threads, and per thread a fixed call tree that a random walk explores, so
// that the number of distinct stacks stays realistic (a few tens of
// thousands) however many records are written.
const (
	bigMethods     = 600
	bigThreads     = 12
	bigTreeNodes   = 4000 // per thread: at most this many distinct stacks
	bigRecordSize  = 14   // v3 dual-clock record
	bigEnterChance = 0.52 // a little above 1/2 so stacks get deep
)

// callTree is one thread's fixed tree: node 0 is the thread's idle root.
type callTree struct {
	method   []uint32 // method id of each node
	parent   []int32
	children [][]int32
}

// newCallTree grows a random recursive tree: each new node hangs under a
// random earlier node, which gives log-depth stacks like real apps have.
func newCallTree(rng *rand.Rand, methods []uint32) *callTree {
	t := &callTree{method: []uint32{0}, parent: []int32{-1}, children: [][]int32{nil}}
	for i := 1; i < bigTreeNodes; i++ {
		p := int32(rng.IntN(i))
		t.method = append(t.method, methods[rng.IntN(len(methods))])
		t.parent = append(t.parent, p)
		t.children = append(t.children, nil)
		t.children[p] = append(t.children[p], int32(i))
	}
	return t
}

// bigKey is the trace description without records: its Regular() output is
// the key text and the SLOW header, to which the records are appended.
func bigKey(records int64) (*tracegen.Trace, []uint32) {
	tr := &tracegen.Trace{Version: 3, Clock: "dual", VM: "art", Start: 1_000_000,
		Options: []tracegen.Option{{Key: "num-method-calls", Value: strconv.FormatInt(records, 10)}, {Key: "pid", Value: "4242"}}}
	names := []string{"main", "RenderThread", "Binder:4242_1", "Binder:4242_2", "OkHttp Dispatcher",
		"pool-1-thread-1", "pool-1-thread-2", "DefaultDispatcher-worker-1", "DefaultDispatcher-worker-2",
		"FinalizerDaemon", "HeapTaskDaemon", "Jit thread pool"}
	for i := range bigThreads {
		tr.Threads = append(tr.Threads, tracegen.Thread{ID: uint32(4242 + i), Name: names[i]})
	}
	ids := make([]uint32, bigMethods)
	for i := range ids {
		ids[i] = uint32(i) << 2
		tr.Methods = append(tr.Methods, tracegen.Method{ID: ids[i],
			Class: fmt.Sprintf("com.example.shop.feature%d.Class%d", i/60, i/6), Name: fmt.Sprintf("method%d", i),
			Signature: "(Ljava/lang/String;I)V", Source: fmt.Sprintf("Class%d.kt", i/6)})
	}
	return tr, ids
}

// writeBigTrace writes a regular v3 dual-clock trace of exactly records
// records to w. Threads take turns in chunks of records, sharing one wall
// clock; each thread walks its call tree. Frames still open at the end stay
// open, as in real recordings.
func writeBigTrace(w io.Writer, records int64, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	key, methods := bigKey(records)
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.Write(key.Regular()); err != nil {
		return err
	}
	trees := make([]*callTree, bigThreads)
	cur := make([]int32, bigThreads)
	cpu := make([]uint32, bigThreads)
	for i := range trees {
		trees[i] = newCallTree(rng, methods)
	}
	var wall uint32
	var rec [bigRecordSize]byte
	for n := int64(0); n < records; {
		th := rng.IntN(bigThreads)
		chunk := min(int64(64+rng.IntN(448)), records-n)
		for range chunk {
			t, node := trees[th], cur[th]
			var word uint32
			kids := t.children[node]
			if node == 0 || (len(kids) > 0 && rng.Float64() < bigEnterChance) {
				if len(kids) == 0 {
					kids = t.children[0]
				}
				node = kids[rng.IntN(len(kids))]
				word = t.method[node] // action 0: enter
			} else {
				word = t.method[node] | 1 // exit
				node = t.parent[node]
			}
			cur[th] = node
			wall += 1 + uint32(rng.IntN(3))
			cpu[th] += uint32(rng.IntN(3))
			binary.LittleEndian.PutUint16(rec[0:], uint16(4242+th))
			binary.LittleEndian.PutUint32(rec[2:], word)
			binary.LittleEndian.PutUint32(rec[6:], cpu[th])
			binary.LittleEndian.PutUint32(rec[10:], wall)
			if _, err := bw.Write(rec[:]); err != nil {
				return err
			}
		}
		n += chunk
	}
	return bw.Flush()
}
