package ops

import (
	"context"

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
	return []*Op{show, set}
}
