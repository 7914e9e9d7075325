package engine_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/ops"
)

// TestErrorsNameNoCommand holds the engine to giving recovery in no front
// end's terms: no string in its code (every error message and hint among
// them) names a loupe command or a command-line flag. An error says how to
// recover with apitype.Step values, which the CLI writes as commands and
// MCP as tool calls; each step must name an operation of the registry and
// only its input fields, by their wire names. The errors the tests provoke
// are checked as well, by enginetest.WantCode and WantStep.
func TestErrorsNameNoCommand(t *testing.T) {
	t.Parallel()
	reg := ops.New()
	var files, steps int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "enginetest":
			return filepath.SkipDir // test helpers, which hold the pattern itself
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				s, err := strconv.Unquote(n.Value)
				if n.Kind == token.STRING && err == nil && enginetest.CLIWords.MatchString(s) {
					t.Errorf("%s: %q names a command line; give an apitype.Step instead", fset.Position(n.Pos()), s)
				}
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Step" && fmt.Sprint(sel.X) == "apitype" {
					steps++
					checkStep(t, reg, fset.Position(n.Pos()).String(), n)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 || steps == 0 {
		t.Fatalf("scanned %d files, %d steps: the engine's sources were not found", files, steps)
	}
}

// checkStep checks one apitype.Step{Op: "…", Args: map[string]string{…}}
// literal against the registry.
func checkStep(t *testing.T, reg *ops.Registry, pos string, lit *ast.CompositeLit) {
	t.Helper()
	var op *ops.Op
	var args []string
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			t.Errorf("%s: write steps with field names", pos)
			return
		}
		switch fmt.Sprint(kv.Key) {
		case "Op":
			name, ok := stringLit(kv.Value)
			if !ok {
				t.Errorf("%s: a step's op is a constant string", pos)
				return
			}
			if op, ok = reg.Lookup(name); !ok {
				t.Errorf("%s: no operation %q in the registry", pos, name)
				return
			}
		case "Args":
			m, ok := kv.Value.(*ast.CompositeLit)
			if !ok {
				t.Errorf("%s: a step's args are a map literal", pos)
				return
			}
			for _, e := range m.Elts {
				k, ok := stringLit(e.(*ast.KeyValueExpr).Key)
				if !ok {
					t.Errorf("%s: a step's field names are constant strings", pos)
					return
				}
				args = append(args, k)
			}
		}
	}
	if op == nil {
		t.Errorf("%s: a step without an op", pos)
		return
	}
	fields := map[string]bool{}
	typ := op.InType()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		fields[name] = true
	}
	for _, a := range args {
		if !fields[a] {
			t.Errorf("%s: operation %q has no input field %q", pos, op.Name, a)
		}
	}
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
