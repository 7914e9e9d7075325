package ops

import (
	"net"

	"github.com/loupe-dev/loupe/internal/wire"
)

// BrokerServeIn says where the broker listens.
type BrokerServeIn struct {
	Addr string `json:"addr,omitempty" flag:"addr" meta:"HOST:PORT" help:"where to listen: a loopback address (default: 127.0.0.1 on a free port); forward a port to reach it from another host"`
}

// Validate checks the address: loopback only.
func (in *BrokerServeIn) Validate() error {
	if in.Addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(in.Addr)
	if err != nil {
		return usage("%s %q: want HOST:PORT, such as 127.0.0.1:8766", fld("addr"), in.Addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usage("%s %q is not loopback: the broker listens on 127.0.0.1 or ::1 only (forward a port to reach it from another host)", fld("addr"), in.Addr)
	}
	return nil
}

// BrokerHostIn names a host connection.
type BrokerHostIn struct {
	Host string `json:"host" flag:"host" meta:"NAME" help:"the remote host's name (letters, digits, '.', '_', '-')"`
}

// Validate requires the host.
func (in *BrokerHostIn) Validate() error {
	if in.Host == "" {
		return usage("%s is required", fld("host"))
	}
	return nil
}

// BrokerRevokeIn names the host to revoke.
type BrokerRevokeIn struct {
	Host string `json:"host" arg:"NAME" help:"the host whose token to revoke"`
}

// Validate requires the host.
func (in *BrokerRevokeIn) Validate() error {
	if in.Host == "" {
		return usage("name the host to revoke")
	}
	return nil
}

// Broker outputs.
type (
	BrokerOut         = wire.BrokerOut
	BrokerRegisterOut = wire.BrokerRegisterOut
	BrokerHostsOut    = wire.BrokerHostsOut
)

// brokerOps are the person's administration of the broker: none is an
// MCP tool (an agent must not mint or revoke its own credentials), and
// none runs through the broker.
func brokerOps() []*Op {
	const why = "the broker's hosts and tokens are the person's to give and take"
	return []*Op{
		describe[BrokerServeIn, BrokerOut]("broker serve", "start the broker for remote agents (or find it) on loopback and print its address", Write, actTimeout).as(ActControl).sessionWide().noBrowser().noMCP(why),
		describe[BrokerHostIn, BrokerRegisterOut]("broker register", "mint a bearer token for a remote host's connection: a new generation, the old token refused from now on", Write, actTimeout).as(ActControl).sessionWide().noBrowser().noMCP(why),
		describe[BrokerRevokeIn, BrokerHostsOut]("broker revoke", "refuse a host's token from now on and end its remote sessions' tasks", Write, actTimeout).as(ActControl).sessionWide().noBrowser().noMCP(why),
		describe[NoIn, BrokerHostsOut]("broker hosts", "list the broker's hosts: generation, created, last used, revoked", Read, actTimeout).sessionWide().noBrowser().noMCP(why),
	}
}
