package handlers

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Broker is the daemon's broker for remote agents: its listener and its
// hosts' tokens.
type Broker interface {
	// Serve returns the broker's address, starting it on addr ("" for a
	// free loopback port) or moving it there.
	Serve(addr string) (url string, err error)
	// Register mints a host's next token; Revoke refuses the current
	// one. Both end the tasks of the generations they replace.
	Register(host string) (*ops.BrokerRegisterOut, error)
	Revoke(host string) (*ops.BrokerHostsOut, error)
	Hosts() *ops.BrokerHostsOut
}

func brokerHandlers() map[string]Handler {
	none := func() error {
		return apitype.Errorf(apitype.TransportUnsupported, "this process serves no broker; the daemon does").
			Fix("run it from the CLI ({1})", apitype.Step{Op: "broker serve"})
	}
	return map[string]Handler{
		"broker serve": Func(func(ctx context.Context, d *Deps, in *ops.BrokerServeIn) (*ops.BrokerOut, error) {
			if d.Broker == nil {
				return nil, none()
			}
			url, err := d.Broker.Serve(in.Addr)
			if err != nil {
				return nil, apitype.Errorf(apitype.BadInput, "%v", err)
			}
			return &ops.BrokerOut{URL: url}, nil
		}),
		"broker register": Func(func(ctx context.Context, d *Deps, in *ops.BrokerHostIn) (*ops.BrokerRegisterOut, error) {
			if d.Broker == nil {
				return nil, none()
			}
			out, err := d.Broker.Register(in.Host)
			if err != nil {
				return nil, apitype.Errorf(apitype.BadInput, "%v", err)
			}
			return out, nil
		}),
		"broker revoke": Func(func(ctx context.Context, d *Deps, in *ops.BrokerRevokeIn) (*ops.BrokerHostsOut, error) {
			if d.Broker == nil {
				return nil, none()
			}
			out, err := d.Broker.Revoke(in.Host)
			if err != nil {
				return nil, apitype.Errorf(apitype.BadInput, "%v", err).Fix("list the hosts ({1})", apitype.Step{Op: "broker hosts"})
			}
			return out, nil
		}),
		"broker hosts": Func(func(ctx context.Context, d *Deps, in *ops.NoIn) (*ops.BrokerHostsOut, error) {
			if d.Broker == nil {
				return nil, none()
			}
			return d.Broker.Hosts(), nil
		}),
	}
}
