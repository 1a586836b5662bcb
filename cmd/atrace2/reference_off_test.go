//go:build !atrace2_reference

package main

// referenceOnly: see reference_on_test.go.
const referenceOnly = false
