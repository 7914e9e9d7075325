// Package depscheck holds the test that keeps loupe's contract apart from
// its binding: the front ends that are clients only — the command line,
// the daemon's client, the operation contract, the skill generator and the
// MCP front end — must link none of the engine, CDP, the ledger, SQLite,
// PostgreSQL's driver, the executor or anything else of the daemon's
// side. cmd/loupe joins the
// two sides in one binary; these packages never do it themselves.
package depscheck
