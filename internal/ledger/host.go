package ledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
)

// HostEnv names the variable that sets this host's identity outright.
const HostEnv = "LOUPE_HOST"

// LocalHost is this host's identity in the ledger: what each generation
// records, what Entry.Host shows, and what scopes recovery on a ledger
// several hosts share — a host judges whether a generation's process
// still runs only for generations of its own identity, as a pid, a start
// time and a boot id mean nothing on another machine.
//
// It is LOUPE_HOST when that is set. Otherwise it is the host name and,
// after a slash, 12 hex digits drawn from the machine id
// (/etc/machine-id, else /var/lib/dbus/machine-id): "web-3/5f1c0a9e2b7d".
// The host name is what a person recognises; the machine id, set once
// when the system is installed and kept across reboots, tells apart
// machines that share a name (every container called "localhost", a host
// name reused after a machine was replaced). The digits are not the
// machine id's own but a keyed hash of it (HMAC-SHA-256 keyed by the id,
// of a string of loupe's), as machine-id(5) asks of applications: the id
// itself is meant to stay on the machine, and the ledger's rows are read
// by every host of the fleet and shown to agents. Without a machine id
// the identity is the host name alone, and without that "localhost".
//
// Two processes that share an identity must share a pid namespace: that
// is one machine, or one container. Containers that share a host name and
// a mounted machine id but not their pids would take each other's live
// processes for stopped ones and settle their writes as unknown; give
// each its own LOUPE_HOST. And an identity must not change while its
// generations may hold reserved rows: the rows of an identity nobody uses
// any more are never recovered (they stay reserved, read as unsettled).
func LocalHost() string {
	if h := strings.TrimSpace(os.Getenv(HostEnv)); h != "" {
		return h
	}
	name, err := os.Hostname()
	if err != nil || name == "" {
		name = "localhost"
	}
	if id := machineID(); id != "" {
		return name + "/" + id
	}
	return name
}

// machineID is 12 hex digits of an application-specific hash of the
// machine id, or "" without one.
func machineID() string {
	for _, f := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		id := strings.TrimSpace(string(b))
		if id == "" || strings.Trim(id, "0123456789abcdef") != "" {
			continue
		}
		h := hmac.New(sha256.New, []byte(id))
		h.Write([]byte("loupe ledger host identity"))
		return hex.EncodeToString(h.Sum(nil))[:12]
	}
	return ""
}
