package ops

import (
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

func settingsOps() []*Op {
	why := "a person sets how far agents may control the browser; an agent must not widen its own reach"
	return []*Op{
		describe[NoIn, SettingsOut]("settings", "show the browser-control settings (kept in settings.json in LOUPE_HOME)", Read, actTimeout).sessionWide().noBrowser().noMCP(why),
		describe[SettingsSetIn, SettingsOut]("settings set", "change a setting: controlEnabled (agents may drive the browser) or ignoreCertificateErrors (load pages whose certificates are invalid)", Write, actTimeout).as(ActControl).sessionWide().noBrowser().changesSettings().noMCP(why),
		describe[NoIn, ClearedOut]("settings clear-cache", "clear the session's HTTP cache, Cache Storage and service workers, every site (cookies and site data stay)", Write, actTimeout).as(ActControl).sessionWide().changesSettings().noMCP(why),
		describe[NoIn, ClearedOut]("settings clear-data", "clear all the session's browsing data, every site: cookies, storage, caches, service workers (temp partitions stay)", Write, actTimeout).as(ActControl).sessionWide().changesSettings().noMCP(why),
	}
}

// ClearedOut says what a clear removed.
type ClearedOut = wire.ClearedOut
