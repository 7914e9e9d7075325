package wire

import "fmt"

// ControlOut says who drives a tab after a take-over or a resume.
type ControlOut struct {
	SurfaceID string `json:"surface_id"`
	Mode      string `json:"mode"` // agent or human
	Epoch     int64  `json:"epoch"`
	// StaleRefs counts the refs a resume made stale.
	StaleRefs int `json:"stale_refs,omitempty"`
}

// Text is one line.
func (o *ControlOut) Text() string {
	if o.Mode == "human" {
		return fmt.Sprintf("%s is yours (epoch %d): agents can neither read nor act on it until `resume`", o.SurfaceID, o.Epoch)
	}
	return fmt.Sprintf("%s is the agents' again (epoch %d); %d earlier refs are stale", o.SurfaceID, o.Epoch, o.StaleRefs)
}
