CREATE TABLE IF NOT EXISTS "console_notify_settings" (
	"id" integer PRIMARY KEY NOT NULL,
	"large_order" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp (6) with time zone,
	"updated_by" text
);
--> statement-breakpoint
ALTER TABLE "console_balance_snapshots" ADD COLUMN IF NOT EXISTS "tie_out_checked_at" timestamp (6) with time zone;
--> statement-breakpoint
ALTER TABLE "console_intents" DROP CONSTRAINT IF EXISTS "console_intents_key_check";--> statement-breakpoint
ALTER TABLE "console_intents" ADD CONSTRAINT "console_intents_key_check" CHECK (("console_intents"."operation" in ('cancel_conversion', 'update_policy', 'replay_event', 'take_snapshot', 'update_notifications') and "console_intents"."target_id" is not null and "console_intents"."ref_id" is null) or ("console_intents"."operation" not in ('cancel_conversion', 'update_policy', 'replay_event', 'take_snapshot', 'update_notifications') and "console_intents"."target_id" is null and ("console_intents"."ref_id" is not null or "console_intents"."state" = 'REFUSED')));
