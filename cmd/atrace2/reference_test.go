package main

import "github.com/atrace2/atrace2/internal/reference"

// referenceOnly: the build runs every package on its plain reference path
// (the atrace2_reference tag, package internal/reference). Those paths are
// kept for agreement with the fast ones, not for speed or memory, so
// FuzzPipeline checks their outputs and errors but not its allocation and
// CPU budgets.
const referenceOnly = reference.Only
