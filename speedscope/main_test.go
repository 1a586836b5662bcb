package speedscope

import (
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }
