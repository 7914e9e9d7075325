package ops

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/settings"
	"github.com/loupe-dev/loupe/internal/wire"
)

// SettingsSetIn changes one setting.
type SettingsSetIn struct {
	Key   string `json:"key" arg:"KEY" help:"controlEnabled or ignoreCertificateErrors"`
	Value string `json:"value" arg:"VALUE" help:"true or false"`
}

// Validate checks the key and the value.
func (in *SettingsSetIn) Validate() error {
	if in.Key == "" {
		return usage("missing %s", fld("key"))
	}
	if _, err := settings.Defaults().Value(in.Key); err != nil {
		return usage("%v", err)
	}
	if in.Value != "true" && in.Value != "false" {
		return usage("%s %q: want true or false", fld("value"), in.Value)
	}
	return nil
}

// SettingsOut shows the settings in force and where they are kept.
type SettingsOut = wire.SettingsOut

func settingsOut(s *settings.Store, v settings.Settings) *SettingsOut {
	return &SettingsOut{File: s.Path(), ControlEnabled: v.ControlEnabled, IgnoreCertificateErrors: v.IgnoreCertificateErrors}
}

func settingsOps() []*Op {
	why := "a person sets how far agents may control the browser; an agent must not widen its own reach"
	show := define("settings", "show the browser-control settings (kept in settings.json in LOUPE_HOME)", Read, actTimeout,
		func(ctx context.Context, env Env, _ *NoIn) (*SettingsOut, error) {
			s := env.Settings()
			v, err := s.Get()
			if err != nil {
				return nil, err
			}
			return settingsOut(s, v), nil
		}).sessionWide().noMCP(why)
	set := define("settings set", "change a setting: controlEnabled (agents may drive the browser) or ignoreCertificateErrors (load pages whose certificates are invalid)", Write, actTimeout,
		func(ctx context.Context, env Env, in *SettingsSetIn) (*SettingsOut, error) {
			s := env.Settings()
			v, err := s.Set(in.Key, in.Value)
			if err != nil {
				return nil, err
			}
			return settingsOut(s, v), nil
		}).as(ActControl).sessionWide().noMCP(why)
	for _, o := range []*Op{show, set} {
		o.NoBrowser = true
	}
	clearCache := define("settings clear-cache", "clear the session's HTTP cache, Cache Storage and service workers, every site (cookies and site data stay)", Write, actTimeout,
		func(ctx context.Context, env Env, _ *NoIn) (*ClearedOut, error) {
			return clear(ctx, env, surface.ClearCache, "the HTTP cache, Cache Storage and service workers", "cookies and site data; temp partitions")
		}).as(ActControl).sessionWide().noMCP(why)
	clearData := define("settings clear-data", "clear all the session's browsing data, every site: cookies, storage, caches, service workers (temp partitions stay)", Write, actTimeout,
		func(ctx context.Context, env Env, _ *NoIn) (*ClearedOut, error) {
			return clear(ctx, env, surface.ClearAllData, "all data (cookies, storage, caches, service workers)", "temp partitions")
		}).as(ActControl).sessionWide().noMCP(why)
	return []*Op{show, set, clearCache, clearData}
}

// ClearedOut says what a clear removed.
type ClearedOut = wire.ClearedOut

// clear clears the shared partition of the session's own browser; an
// attached browser's data is its owner's, never loupe's to clear.
func clear(ctx context.Context, env Env, do func(context.Context, *engine.Browser) error, cleared, kept string) (*ClearedOut, error) {
	b, err := env.Browser(ctx)
	if err != nil {
		return nil, err
	}
	if !b.Launched() {
		return nil, apitype.Errorf(apitype.Denied, "session %s is attached to a browser loupe did not start: its data is its owner's; nothing was cleared", env.Session()).
			Fix("clear it in that browser's own settings, or use a session loupe launches")
	}
	if err := do(ctx, b); err != nil {
		return nil, err
	}
	return &ClearedOut{Session: env.Session(), Cleared: cleared, Kept: kept}, nil
}
