package wire

import (
	"encoding/json"
	"fmt"
)

// StorageStateOut says what a storage-state save or load did.
type StorageStateOut struct {
	Action    string `json:"action" cap:"-"`
	Partition string `json:"partition" cap:"-"`
	Path      string `json:"path,omitempty" cap:"-"`
	Cookies   int    `json:"cookies"`
	Origins   int    `json:"origins"`
	// NoTab counts the origins whose session storage a load left out: no
	// tab of the partition shows them.
	NoTab int `json:"no_tab,omitempty"`
	// State is the saved state itself, when the caller asked for it (the
	// CLI, which writes the file).
	State json.RawMessage `json:"state,omitempty" cap:"-"`
}

// Text is one line.
func (o *StorageStateOut) Text() string {
	verb := map[string]string{"save": "saved", "load": "loaded"}[o.Action]
	s := fmt.Sprintf("%s %d cookies and the storage of %d origins of partition %s", verb, o.Cookies, o.Origins, o.Partition)
	if o.Path != "" {
		s += " (" + o.Path + ")"
	}
	if o.NoTab > 0 {
		s += fmt.Sprintf("; the session storage of %d origins was left out: no tab of the partition shows them", o.NoTab)
	}
	return s
}
