-- Schema version 2: a person's acknowledgement of an unknown outcome
-- (Unix nanoseconds; NULL until someone has looked). It settles nothing
-- and replays nothing: it only says the unknown was seen.
ALTER TABLE operations ADD COLUMN acknowledged INTEGER;
