package engine

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// One browser serves the whole package; each test opens its own tab.
var (
	testBrowser *Browser
	testServer  *httptest.Server
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"))
	if err != nil {
		println("engine tests need Chromium:", err.Error())
		return 1
	}
	dir, err := os.MkdirTemp("", "loupe-engine-test-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	testServer = httptest.NewServer(testpages.Handler())
	defer testServer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Launch(ctx, LaunchOptions{Binary: bin, ProfileDir: filepath.Join(dir, "s", "profile")})
	if err != nil {
		println("launch:", err.Error())
		return 1
	}
	testBrowser = b
	defer b.Close(context.Background())
	return m.Run()
}

// newTab opens a fresh tab at the fixture page and closes it after the test.
func openTab(t *testing.T, page string) *Tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	tab, err := testBrowser.NewTab(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = testBrowser.CloseTab(ctx, tab.ID)
	})
	if page != "" {
		url := page
		if !strings.Contains(page, "://") {
			url = testServer.URL + "/" + page
		}
		if _, err := tab.Navigate(ctx, url); err != nil {
			t.Fatal(err)
		}
	}
	return tab
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}
