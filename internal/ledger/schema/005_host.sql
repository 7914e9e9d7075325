-- Schema version 5: the host of each generation's process (see
-- ledger.LocalHost). A SQLite file lives on one machine, so every row
-- is of this host; it is recorded so that Entry.Host means the same on
-- SQLite as on a PostgreSQL ledger that several hosts share. Generations
-- from before have none ('').
ALTER TABLE generations ADD COLUMN host TEXT NOT NULL DEFAULT '';
