package apitype

import "fmt"

// Where says where a session's browser runs: "local" (launched by the
// daemon), "attached" (over CDP), or on which Grid, WebDriver session
// and node.
func (s SessionInfo) Where() string {
	switch {
	case s.Grid != "" && s.Node != "":
		return fmt.Sprintf("on grid %s (WebDriver session %s, node %s)", s.Grid, s.WebDriverSession, s.Node)
	case s.Grid != "":
		return fmt.Sprintf("on grid %s (WebDriver session %s)", s.Grid, s.WebDriverSession)
	case s.Attached:
		return "attached"
	}
	return "local"
}
