CREATE TABLE "console_auth_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"email" text,
	"actor" text,
	"session_id" uuid,
	"address" text,
	"detail" jsonb
);
--> statement-breakpoint
CREATE TABLE "console_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"staff_email" text NOT NULL,
	"role" text NOT NULL,
	"provider" text NOT NULL,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"user_agent" text,
	"address" text
);
--> statement-breakpoint
CREATE TABLE "console_sign_in_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"window_started_at" timestamp (6) with time zone NOT NULL,
	"last_failure_at" timestamp (6) with time zone NOT NULL,
	"locked_until" timestamp (6) with time zone,
	"lockouts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "console_auth_events_at_idx" ON "console_auth_events" USING btree ("at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "console_sessions_email_idx" ON "console_sessions" USING btree ("staff_email");--> statement-breakpoint
CREATE INDEX "console_sessions_last_seen_idx" ON "console_sessions" USING btree ("last_seen_at");