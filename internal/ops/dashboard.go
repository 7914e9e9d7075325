package ops

import (
	"net"

	"github.com/loupe-dev/loupe/internal/wire"
)

// DashboardIn says where the dashboard listens.
type DashboardIn struct {
	Addr string `json:"addr,omitempty" flag:"addr" meta:"HOST:PORT" help:"where to listen (default: 127.0.0.1 on a free port; another address is reachable by others, who still need the token)"`
	// Open is the CLI's: it opens the address in the system's browser.
	Open bool `json:"open,omitempty" flag:"open" help:"open the address in your browser"`
}

// Validate checks the address.
func (in *DashboardIn) Validate() error {
	if in.Addr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(in.Addr); err != nil {
		return usage("%s %q: want HOST:PORT, such as 127.0.0.1:8765", fld("addr"), in.Addr)
	}
	return nil
}

// DashboardOut is the dashboard's address.
type DashboardOut = wire.DashboardOut

func dashboardOps() []*Op {
	return []*Op{
		describe[DashboardIn, DashboardOut]("dashboard", "start the dashboard (or find it) and print its address: watch tabs live, take over, approve, settle unknown outcomes, change settings", Write, actTimeout).as(ActControl).sessionWide().noBrowser().noMCP("the dashboard is a person's; its address signs them in"),
	}
}
