CREATE TABLE IF NOT EXISTS "console_balance_snapshots" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"cutoff" timestamp (6) with time zone,
	"taken_at" timestamp (6) with time zone NOT NULL,
	"taken_by" text NOT NULL,
	"balances" jsonb NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "console_balance_snapshots_cutoff_idx" ON "console_balance_snapshots" USING btree ("cutoff") WHERE "console_balance_snapshots"."cutoff" IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_balance_snapshots_taken_idx" ON "console_balance_snapshots" USING btree ("taken_at");--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_snapshot_job" (
	"id" integer PRIMARY KEY NOT NULL,
	"holder" text,
	"lease_until" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "console_snapshot_job" ("id") VALUES (1) ON CONFLICT DO NOTHING;
--> statement-breakpoint
ALTER TABLE "console_intents" DROP CONSTRAINT IF EXISTS "console_intents_key_check";--> statement-breakpoint
ALTER TABLE "console_intents" ADD CONSTRAINT "console_intents_key_check" CHECK (("console_intents"."operation" in ('cancel_conversion', 'update_policy', 'replay_event', 'take_snapshot') and "console_intents"."target_id" is not null and "console_intents"."ref_id" is null) or ("console_intents"."operation" not in ('cancel_conversion', 'update_policy', 'replay_event', 'take_snapshot') and "console_intents"."target_id" is null and ("console_intents"."ref_id" is not null or "console_intents"."state" = 'REFUSED')));
