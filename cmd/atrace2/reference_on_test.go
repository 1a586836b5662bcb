//go:build atrace2_reference

package main

// referenceOnly: the build runs every package on its plain reference path
// (the atrace2_reference tag). Those paths are kept for agreement with the
// fast ones, not for speed or memory, so FuzzPipeline checks their outputs
// and errors but not its allocation and CPU budgets.
const referenceOnly = true
