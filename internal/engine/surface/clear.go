package surface

import (
	"context"
	"fmt"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/partition"
)

// What the clears remove, as Storage.clearDataForOrigin names it. The
// HTTP cache is not a storage type; Network.clearBrowserCache clears it.
const (
	// CacheTypes: what a page keeps to load faster. Cookies and site
	// data (local storage, IndexedDB, …) stay.
	CacheTypes = "cache_storage,service_workers,shader_cache"
	// AllTypes: every storage type, cookies included.
	AllTypes = "all"
)

// ClearCache clears the persist partition's HTTP cache, Cache Storage
// and service workers, for every origin; cookies and site data stay.
func ClearCache(ctx context.Context, b *engine.Browser) error {
	return clearPersist(ctx, b, CacheTypes)
}

// ClearAllData clears every storage type of the persist partition, for
// every origin — cookies, local and session storage, IndexedDB, Cache
// Storage, service workers, file systems — and its HTTP cache. Temp
// partitions are untouched.
func ClearAllData(ctx context.Context, b *engine.Browser) error {
	return clearPersist(ctx, b, AllTypes)
}

// clearPersist clears through a page of the persist partition: the
// Storage and Network domains of a page session act on that page's
// storage partition only (on the browser session clearDataForOrigin is an
// internal error), and an origin that is not a URL — "" — clears every
// origin (measured with Chromium 156: two origins' cookies, local
// storage, IndexedDB, caches and service workers all went, a temp
// context's stayed). Without a persist tab a blank one is opened for the
// call and closed after it.
func clearPersist(ctx context.Context, b *engine.Browser, types string) error {
	page, opened, err := persistPage(ctx, b)
	if err != nil {
		return err
	}
	if opened {
		defer func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
			defer cancel()
			_, _ = cdpproto.Call(cctx, b.BrowserSession(), target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(page.TargetID)})
		}()
	}
	if _, err := cdpproto.Call(ctx, page.Session(), network.ClearBrowserCache, cdpproto.Empty{}); err != nil {
		return fmt.Errorf("clearing the HTTP cache: %w", err)
	}
	if _, err := cdpproto.Call(ctx, page.Session(), storage.ClearDataForOrigin, storage.ClearDataForOriginParams{Origin: "", StorageTypes: types}); err != nil {
		return fmt.Errorf("clearing %s: %w", types, err)
	}
	return nil
}

// closeTimeout bounds closing the tab a clear opened for itself.
const closeTimeout = 5 * time.Second

// persistPage is a live page of the persist partition, opening a blank
// one when there is none (opened true).
func persistPage(ctx context.Context, b *engine.Browser) (*engine.Surface, bool, error) {
	for _, t := range b.Pages() {
		if PartitionOf(b, t) == partition.Persist && t.Usable() {
			return t, false, nil
		}
	}
	t, err := NewTabIn(ctx, b, partition.Persist)
	if err != nil {
		return nil, false, err
	}
	return t, true, nil
}
