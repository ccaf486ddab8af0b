CREATE TABLE IF NOT EXISTS "console_passkeys" (
	"id" text PRIMARY KEY NOT NULL,
	"staff_email" text NOT NULL,
	"name" text NOT NULL,
	"public_key" text NOT NULL,
	"counter" bigint DEFAULT 0 NOT NULL,
	"transports" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"last_used_at" timestamp (6) with time zone
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_passkeys_staff_idx" ON "console_passkeys" USING btree ("staff_email");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_webauthn_challenges" (
	"challenge" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"staff_email" text NOT NULL,
	"digest" text,
	"created_at" timestamp (6) with time zone NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"used_at" timestamp (6) with time zone
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_webauthn_challenges_expires_idx" ON "console_webauthn_challenges" USING btree ("expires_at");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_approval_decisions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"at" timestamp (6) with time zone NOT NULL,
	"action" text NOT NULL,
	"intent_ids" jsonb NOT NULL,
	"staff_email" text NOT NULL,
	"staff_role" text NOT NULL,
	"outcome" text NOT NULL,
	"credential_id" text,
	"user_verified" boolean,
	"digest" text
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_approval_decisions_at_idx" ON "console_approval_decisions" USING btree ("at" DESC);
