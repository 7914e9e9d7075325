package wire

import "fmt"

// GridPlace is where a browser taken from a Selenium Grid runs: the
// Grid's address, the WebDriver session that holds the slot and the
// node that runs it (omitted when the Grid does not say).
type GridPlace struct {
	URL     string `json:"url" cap:"url"`
	Session string `json:"webdriver_session" cap:"-"`
	Node    string `json:"node,omitempty" cap:"url"`
}

// text is kind, or for a Grid browser where it runs.
func (g *GridPlace) text(kind string) string {
	if g == nil {
		return kind
	}
	s := fmt.Sprintf("on grid %s (WebDriver session %s", g.URL, g.Session)
	if g.Node != "" {
		s += ", node " + g.Node
	}
	return s + ")"
}
