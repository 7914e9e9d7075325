-- Schema version 4: each session's id marks — the last surface and ref
-- numbers it may have handed out — kept beside the tabs file, so that the
-- loss of either file cannot make the next daemon draw an old number
-- again (an old ref must be refused as gone, never act on a new node).
-- They only grow.
CREATE TABLE id_spaces (
	session  TEXT    PRIMARY KEY,
	surfaces INTEGER NOT NULL,
	refs     INTEGER NOT NULL
);
