package ops

import (
	"reflect"
	"testing"
)

// TestOutputsAreWireTypes: every operation's output is a type of package
// wire, the JSON contract, never an engine type or one of this package's
// own, so the contract moves only when package wire does.
func TestOutputsAreWireTypes(t *testing.T) {
	const wire = "github.com/loupe-dev/loupe/internal/wire"
	for _, op := range New().All() {
		typ := reflect.TypeOf(op.NewOut()).Elem()
		if typ.PkgPath() != wire {
			t.Errorf("%s: output %s is from %q, not package wire", op.Name, typ, typ.PkgPath())
		}
	}
}
