-- Schema version 3: what a write was asked to do — its input as JSON (at
-- most 4 KiB; '' when it was larger, or for rows from before) and the
-- stable locator of the element it named, when it named one by ref — so
-- that a person can turn what ran into a script (loupe history --as
-- script). Nothing reads them to replay anything by itself.
ALTER TABLE operations ADD COLUMN input TEXT NOT NULL DEFAULT '';
ALTER TABLE operations ADD COLUMN locator TEXT NOT NULL DEFAULT '';
