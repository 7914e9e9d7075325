package ops

import "github.com/loupe-dev/loupe/internal/wire"

// ImportCookiesIn names the profile to import from. The daemon finds its
// Cookies database (handlers.cookiesFile): that looks at the files of the
// browser's machine, so it is no rule of the contract.
type ImportCookiesIn struct {
	Profile string `json:"profile,omitempty" flag:"profile" meta:"DIR" help:"a Chrome or Chromium profile DIR, or its Cookies database; default: the profile changed last"`
}

// ImportCookiesOut says what was imported and what was left out.
type ImportCookiesOut = wire.ImportCookiesOut

func cookieOps() []*Op {
	return []*Op{
		describe[ImportCookiesIn, ImportCookiesOut]("import-cookies", "bring a person's signed-in state from their Chrome or Chromium profile: its cookies, decrypted, into the session's profile (never passwords)", Write, navTimeout).as(ActControl).sessionWide().noMCP("a person brings their own signed-in state; an agent must not take it"),
	}
}
