package ops

import (
	"github.com/loupe-dev/loupe/internal/cookies"
	"github.com/loupe-dev/loupe/internal/wire"
)

// ImportCookiesIn names the profile to import from.
type ImportCookiesIn struct {
	Profile string `json:"profile,omitempty" flag:"profile" meta:"DIR" help:"a Chrome or Chromium profile DIR, or its Cookies database; default: the profile changed last"`
}

// Validate finds the Cookies database (the newest profile's when none is
// named) and names it in Profile.
func (in *ImportCookiesIn) Validate() error {
	p, err := cookiesPath(in.Profile)
	if err != nil {
		return err
	}
	in.Profile = p
	return nil
}

// ImportCookiesOut says what was imported and what was left out.
type ImportCookiesOut = wire.ImportCookiesOut

func cookieOps() []*Op {
	return []*Op{
		describe[ImportCookiesIn, ImportCookiesOut]("import-cookies", "bring a person's signed-in state from their Chrome or Chromium profile: its cookies, decrypted, into the session's profile (never passwords)", Write, navTimeout).as(ActControl).sessionWide().noMCP("a person brings their own signed-in state; an agent must not take it"),
	}
}

func cookiesPath(profile string) (string, error) {
	if profile == "" {
		p, err := cookies.FindProfile()
		if err != nil {
			return "", usage("%v; name one with %s", err, fld("profile"))
		}
		return p, nil
	}
	p, err := cookies.CookiesFile(profile)
	if err != nil {
		return "", usage("%v", err)
	}
	return p, nil
}
