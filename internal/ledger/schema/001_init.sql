-- Schema version 1: the generations of the processes that opened the
-- ledger, and the operations they reserved. Times are Unix nanoseconds.

-- One row per Open. A process is named by its pid, its start time (clock
-- ticks since boot, /proc/PID/stat field 22) and the boot it ran in, so a
-- reused pid is not taken for the owner. closed is NULL while the
-- generation may still settle its writes.
CREATE TABLE generations (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	pid         INTEGER NOT NULL,
	start_ticks INTEGER NOT NULL,
	boot_id     TEXT    NOT NULL,
	opened      INTEGER NOT NULL,
	closed      INTEGER
);

-- One row per operation id, for ever: rows are never deleted, so an id is
-- never reused. seq is the order of reservation (List's order).
CREATE TABLE operations (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	id         TEXT    NOT NULL UNIQUE,
	session    TEXT    NOT NULL,
	task       TEXT    NOT NULL,
	client     TEXT    NOT NULL,
	generation INTEGER NOT NULL REFERENCES generations (id),
	surface    TEXT    NOT NULL,
	epoch      INTEGER NOT NULL,
	document   TEXT    NOT NULL,
	op         TEXT    NOT NULL,
	action     TEXT    NOT NULL,
	digest     TEXT    NOT NULL,
	state      TEXT    NOT NULL CHECK (state IN ('reserved', 'executed', 'not_executed', 'unknown')),
	code       TEXT    NOT NULL,
	reason     TEXT    NOT NULL,
	reserved   INTEGER NOT NULL,
	settled    INTEGER
);

CREATE INDEX operations_by_state ON operations (state, seq);
CREATE INDEX operations_by_session ON operations (session, seq);
-- Recovery looks only at what is still reserved.
CREATE INDEX operations_reserved ON operations (generation) WHERE state = 'reserved';
