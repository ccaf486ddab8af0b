CREATE TABLE IF NOT EXISTS "console_notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"title" text NOT NULL,
	"detail" text NOT NULL,
	"href" text NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"resolved_at" timestamp (6) with time zone,
	"resolved_by" text,
	"resolution" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "console_notifications_kind_subject_idx" ON "console_notifications" USING btree ("kind","subject");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_notifications_created_idx" ON "console_notifications" USING btree ("created_at" DESC);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_notification_recipients" (
	"notification_id" uuid NOT NULL,
	"email" text NOT NULL,
	"read_at" timestamp (6) with time zone,
	CONSTRAINT "console_notification_recipients_pk" PRIMARY KEY("notification_id","email")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_notification_recipients_email_idx" ON "console_notification_recipients" USING btree ("email","read_at");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_notification_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"notification_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"target" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_at" timestamp (6) with time zone NOT NULL,
	"last_error" text,
	"created_at" timestamp (6) with time zone NOT NULL,
	"sent_at" timestamp (6) with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "console_notification_deliveries_once_idx" ON "console_notification_deliveries" USING btree ("notification_id","channel","target");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_notification_deliveries_due_idx" ON "console_notification_deliveries" USING btree ("state","next_at");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_notification_prefs" (
	"email" text NOT NULL,
	"kind" text NOT NULL,
	"console" boolean NOT NULL,
	"email_on" boolean NOT NULL,
	"updated_at" timestamp (6) with time zone NOT NULL,
	CONSTRAINT "console_notification_prefs_pk" PRIMARY KEY("email","kind")
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_notification_channels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"url" text NOT NULL,
	"secret" text,
	"kinds" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"created_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_notification_worker" (
	"id" integer PRIMARY KEY NOT NULL,
	"holder" text,
	"lease_until" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "console_notification_worker" ("id", "holder", "lease_until") VALUES (1, NULL, 0) ON CONFLICT DO NOTHING;
