-- The decision trail is read newest first. Two attempts recorded in the same millisecond
-- (a refusal is written within a millisecond of the one before it) were ordered by their
-- random uuid, so the trail could show them swapped. `seq` is the order they were written
-- in and breaks the tie. Additive: rows already there are numbered in no particular order.
ALTER TABLE "console_approval_decisions" ADD COLUMN IF NOT EXISTS "seq" bigserial NOT NULL;
