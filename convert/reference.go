package convert

import "github.com/atrace2/atrace2/internal/reference"

// referenceOnly turns every fast path of the package off: the build tag
// atrace2_reference runs the whole test suite on the reference paths
// (package internal/reference).
const referenceOnly = reference.Only
