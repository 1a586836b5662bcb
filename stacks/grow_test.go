package stacks

// The tests and benchmarks of this package grow the tree from a small
// capacity, as their traces are small: every doubling, and the pointers
// into the tree it invalidates, then gets exercised.
func init() { firstTreeCap = 256 }
