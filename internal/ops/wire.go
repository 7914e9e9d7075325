package ops

import (
	"github.com/loupe-dev/loupe/internal/wire"
)

// Every operation's output is a type of package wire, the JSON contract;
// these are their names as operations' outputs.
type (
	SnapshotOut   = wire.SnapshotOut
	ActOut        = wire.ActOut
	NavOut        = wire.NavOut
	WaitOut       = wire.WaitOut
	QueryOut      = wire.QueryOut
	ValueOut      = wire.ValueOut
	BoxOut        = wire.BoxOut
	StateOut      = wire.StateOut
	EvalOut       = wire.EvalOut
	ScreenshotOut = wire.ScreenshotOut
	TabsOut       = wire.TabsOut
	TabOut        = wire.TabOut
	SurfacesOut   = wire.SurfacesOut
	SurfaceOut    = wire.SurfaceOut
	WindowsOut    = wire.WindowsOut
	StatusOut     = wire.StatusOut
	ConsoleOut    = wire.ConsoleOut
	// DiagnosticsOut is diagnostics' output.
	DiagnosticsOut = wire.DiagnosticsOut
	NetworkOut     = wire.NetworkOut
	DialogsOut     = wire.DialogsOut
	DownloadsOut   = wire.DownloadsOut
	SessionOut     = wire.SessionOut
	DoctorOut      = wire.DoctorOut
	// GridPlace is where a Grid browser runs (StatusOut.Grid).
	GridPlace = wire.GridPlace
)
