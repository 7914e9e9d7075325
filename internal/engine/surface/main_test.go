package surface_test

import (
	"os"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/enginetest"
)

func TestMain(m *testing.M) { os.Exit(enginetest.Main(m)) }
