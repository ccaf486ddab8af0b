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
