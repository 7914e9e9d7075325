-- Schema version 1 of a PostgreSQL ledger: what SQLite's versions 1 to 5
-- made, in one step (see ../001_init.sql and the steps after it for what
-- each column means). Times are Unix nanoseconds, as on SQLite; states
-- are spelt the same.

-- One row per Open, of any host. host is the identity of the host the
-- process runs on (ledger.LocalHost): its pid, start time and boot id
-- mean something on that host only, and only that host judges whether
-- the process still runs.
CREATE TABLE generations (
	id          BIGSERIAL PRIMARY KEY,
	host        TEXT   NOT NULL,
	pid         BIGINT NOT NULL,
	start_ticks BIGINT NOT NULL,
	boot_id     TEXT   NOT NULL,
	opened      BIGINT NOT NULL,
	closed      BIGINT
);

-- Recovery looks at its own host's generations that are still open.
CREATE INDEX generations_open ON generations (host) WHERE closed IS NULL;

-- One row per operation id, fleet-wide, for ever: the unique id is what
-- refuses a second daemon's reuse of an id. seq is the order of
-- reservation (List's order).
CREATE TABLE operations (
	seq          BIGSERIAL PRIMARY KEY,
	id           TEXT   NOT NULL UNIQUE,
	session      TEXT   NOT NULL,
	task         TEXT   NOT NULL,
	client       TEXT   NOT NULL,
	generation   BIGINT NOT NULL REFERENCES generations (id),
	surface      TEXT   NOT NULL,
	epoch        BIGINT NOT NULL,
	document     TEXT   NOT NULL,
	op           TEXT   NOT NULL,
	action       TEXT   NOT NULL,
	digest       TEXT   NOT NULL,
	state        TEXT   NOT NULL CHECK (state IN ('reserved', 'executed', 'not_executed', 'unknown')),
	code         TEXT   NOT NULL,
	reason       TEXT   NOT NULL,
	reserved     BIGINT NOT NULL,
	settled      BIGINT,
	acknowledged BIGINT,
	input        TEXT   NOT NULL DEFAULT '',
	locator      TEXT   NOT NULL DEFAULT ''
);

CREATE INDEX operations_by_state ON operations (state, seq);
CREATE INDEX operations_by_session ON operations (session, seq);
CREATE INDEX operations_reserved ON operations (generation) WHERE state = 'reserved';

-- Each session name's id marks. They only grow, so daemons of several
-- hosts that use one session name only start each other's numbering
-- further on: an old number is still never drawn again.
CREATE TABLE id_spaces (
	session  TEXT   PRIMARY KEY,
	surfaces BIGINT NOT NULL,
	refs     BIGINT NOT NULL
);
