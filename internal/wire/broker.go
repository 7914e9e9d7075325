package wire

import (
	"fmt"
	"strings"
	"time"
)

// BrokerOut is the running broker's address.
type BrokerOut struct {
	URL string `json:"url" cap:"-"`
}

// Text is the address and what to do with it.
func (o *BrokerOut) Text() string {
	return o.URL + "\n(forward this port to the remote host; register the host with loupe broker register --host NAME)"
}

// BrokerHost is one host connection of the broker: never its token.
type BrokerHost struct {
	Host       string     `json:"host" cap:"-"`
	Generation int64      `json:"generation"`
	Created    time.Time  `json:"created"`
	LastUsed   *time.Time `json:"last_used,omitempty"`
	Revoked    *time.Time `json:"revoked,omitempty"`
	// Ended is how many remote tasks' grants a new generation or a
	// revocation ended (register and revoke only).
	Ended int `json:"ended_grants,omitempty"`
}

// BrokerRegisterOut is a new token, shown once: loupe keeps only its
// hash.
type BrokerRegisterOut struct {
	BrokerHost
	Token string `json:"token" cap:"-"`
}

// Text is the token with its generation.
func (o *BrokerRegisterOut) Text() string {
	return fmt.Sprintf("host %s generation %d\ntoken %s\n(shown once: give it to the remote host as Authorization: Bearer TOKEN; registering %s again replaces it)",
		o.Host, o.Generation, o.Token, o.Host)
}

// BrokerHostsOut lists the broker's hosts.
type BrokerHostsOut struct {
	Hosts []BrokerHost `json:"hosts"`
}

// Text is a line a host.
func (o *BrokerHostsOut) Text() string {
	if len(o.Hosts) == 0 {
		return "no hosts registered (loupe broker register --host NAME)"
	}
	var b strings.Builder
	for _, h := range o.Hosts {
		fmt.Fprintf(&b, "%s  generation %d  created %s", h.Host, h.Generation, h.Created.UTC().Format(time.RFC3339))
		if h.LastUsed != nil {
			fmt.Fprintf(&b, "  last used %s", h.LastUsed.UTC().Format(time.RFC3339))
		} else {
			b.WriteString("  never used")
		}
		if h.Revoked != nil {
			fmt.Fprintf(&b, "  revoked %s", h.Revoked.UTC().Format(time.RFC3339))
		}
		if h.Ended > 0 {
			fmt.Fprintf(&b, "  (%d grants ended)", h.Ended)
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
