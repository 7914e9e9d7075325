package events

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: the
// package owns goroutines, and each must have an owner that stops it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
