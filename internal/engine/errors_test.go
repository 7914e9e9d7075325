package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/enginetest"
)

// TestErrorsNameNoCommand holds the engine to giving recovery in no front
// end's terms: no string in its code (every error message and hint among
// them) names a loupe command or a command-line flag. An error says how to
// recover with apitype.Step values, which the CLI writes as commands and
// MCP as tool calls. The errors the tests provoke are checked as well, by
// enginetest.WantCode.
func TestErrorsNameNoCommand(t *testing.T) {
	var files int
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
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && enginetest.CLIWords.MatchString(s) {
				t.Errorf("%s: %q names a command line; give an apitype.Step instead", fset.Position(lit.Pos()), s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("scanned %d files: the engine's sources were not found", files)
	}
}
