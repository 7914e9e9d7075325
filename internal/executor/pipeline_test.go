package executor

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestPipelineIsTheDocumentedOrder: New builds the stages in the order
// the package doc gives and stageOrder names, each once.
func TestPipelineIsTheDocumentedOrder(t *testing.T) {
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent"})
	var got []string
	for _, s := range x.stages {
		got = append(got, s.name())
	}
	if !slices.Equal(got, stageOrder) {
		t.Fatalf("stages:\n got %v\nwant %v", got, stageOrder)
	}
	doc := packageDoc(t)
	last := -1
	for _, name := range stageOrder {
		i := indexOfStage(doc, name)
		if i < 0 || i < last {
			t.Fatalf("the package doc does not list stage %q in its place (after the one before it)", name)
		}
		last = i
	}
}

// packageDoc is the package comment of executor.go.
func packageDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("executor.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(b), "package executor")
	return doc
}

// indexOfStage is where the doc lists a stage: a line "//\tNAME  …".
func indexOfStage(doc, name string) int {
	for _, sep := range []string{" ", "\n"} {
		if i := strings.Index(doc, "//\t"+name+sep); i >= 0 {
			return i
		}
	}
	return -1
}
