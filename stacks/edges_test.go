package stacks

import (
	"math/rand/v2"
	"testing"
)

// TestEdgeTable checks the table against a Go map through random puts,
// overwrites, deletes and lookups, with keys from small ranges so that
// probe runs collide, wrap around the end and make the table grow.
func TestEdgeTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, keys := range []int{10, 3000, 20000} {
		tab, ref := newEdgeTable(), map[edge]NodeID{}
		for step := range 200_000 {
			k := edge(rng.IntN(keys)) << uint(rng.IntN(3)*20) // dense and sparse keys
			switch rng.IntN(4) {
			case 0, 1:
				id := NodeID(1 + rng.IntN(1<<20))
				tab.put(k, id)
				ref[k] = id
			case 2:
				tab.delete(k)
				delete(ref, k)
			}
			got, ok := tab.get(k)
			if want, wok := ref[k]; ok != wok || got != want {
				t.Fatalf("keys %d, step %d: get(%#x) = %d, %v; want %d, %v", keys, step, k, got, ok, want, wok)
			}
			if tab.n != len(ref) {
				t.Fatalf("keys %d, step %d: %d entries, want %d", keys, step, tab.n, len(ref))
			}
		}
		for k, want := range ref {
			if got, ok := tab.get(k); !ok || got != want {
				t.Fatalf("keys %d: get(%#x) = %d, %v at the end; want %d", keys, k, got, ok, want)
			}
		}
	}
}
