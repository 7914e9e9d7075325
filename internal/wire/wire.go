// Package wire is the JSON contract of loupe's operations: what the CLI's
// --json, the local API and MCP structured content carry; engine types
// never appear here, so the contract moves only when this package does.
//
// Every operation's output is a type of this package (package ops names
// them as aliases and maps engine results onto them in its handlers).
// Field names and JSON tags are the contract: the golden files in
// testdata/ pin them, and a change to one is a change to every front end.
// Outputs with a terse human form implement Text() string (ops.Texter).
//
// Snapshots, queries and console, network, dialog and download records
// name their surface surface_id, as the design's surface contract has it;
// action, navigation and wait results still say surface. The surface
// descriptor keeps the design's own names (id, parentId, originRelation).
package wire

// orDash is a record's surface, "-" when it is unknown.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
