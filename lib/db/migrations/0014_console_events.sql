CREATE TABLE IF NOT EXISTS "console_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"object_type" text,
	"object_id" text,
	"object" jsonb,
	"created_at" timestamp (6) with time zone NOT NULL,
	"read_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (6) with time zone,
	"last_error" text,
	"processed_at" timestamp (6) with time zone,
	"processed_by" text,
	"effects" jsonb,
	"replays" integer DEFAULT 0 NOT NULL,
	"undelivered_webhooks" integer
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_events_created_idx" ON "console_events" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_events_status_idx" ON "console_events" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_events_type_idx" ON "console_events" USING btree ("type","created_at");--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_event_reader" (
	"id" integer PRIMARY KEY NOT NULL,
	"holder" text,
	"lease_until" bigint DEFAULT 0 NOT NULL,
	"cursor_at" timestamp (6) with time zone,
	"cursor_id" text,
	"wake_at" bigint,
	"last_read_at" timestamp (6) with time zone
);
--> statement-breakpoint
INSERT INTO "console_event_reader" ("id") VALUES (1) ON CONFLICT DO NOTHING;
--> statement-breakpoint
ALTER TABLE "console_intents" DROP CONSTRAINT IF EXISTS "console_intents_key_check";--> statement-breakpoint
ALTER TABLE "console_intents" ADD CONSTRAINT "console_intents_key_check" CHECK (("console_intents"."operation" in ('cancel_conversion', 'update_policy', 'replay_event') and "console_intents"."target_id" is not null and "console_intents"."ref_id" is null) or ("console_intents"."operation" not in ('cancel_conversion', 'update_policy', 'replay_event') and "console_intents"."target_id" is null and ("console_intents"."ref_id" is not null or "console_intents"."state" = 'REFUSED')));
