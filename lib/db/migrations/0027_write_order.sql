-- Trails are read newest first, by a time the console writes (a JS Date: milliseconds) or
-- the database's now() (shared by a transaction's rows; milliseconds under PGlite). Two
-- entries written within the same millisecond were ordered by their random uuids, so a
-- trail could show them swapped: two refusals on a decision trail, two policy saves on
-- the audit trail, a failed single sign-on and the next success (which one counts as a
-- person's latest). `seq` is the order each row was written in and breaks those ties.
-- Rows already there are numbered in no particular order. Adding a bigserial column
-- rewrites the table under an exclusive lock: on a large console_intents, run it in a
-- quiet moment.
ALTER TABLE "console_approval_decisions" ADD COLUMN IF NOT EXISTS "seq" bigserial NOT NULL;
--> statement-breakpoint
ALTER TABLE "console_intents" ADD COLUMN IF NOT EXISTS "seq" bigserial NOT NULL;
--> statement-breakpoint
ALTER TABLE "console_auth_events" ADD COLUMN IF NOT EXISTS "seq" bigserial NOT NULL;
--> statement-breakpoint
-- The indexes that serve those orders, now by seq in place of the uuid.
DROP INDEX IF EXISTS "console_intents_created_idx";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_intents_created_idx" ON "console_intents" USING btree ("created_at" DESC NULLS LAST,"seq" DESC NULLS LAST);
--> statement-breakpoint
DROP INDEX IF EXISTS "console_auth_events_at_idx";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_auth_events_at_idx" ON "console_auth_events" USING btree ("at" DESC NULLS LAST,"seq" DESC NULLS LAST);
--> statement-breakpoint
DROP INDEX IF EXISTS "console_auth_events_email_idx";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_auth_events_email_idx" ON "console_auth_events" USING btree (lower("email"),"at" DESC NULLS LAST,"seq" DESC NULLS LAST);
