-- Staff managed in the console (issue 35): who may sign in, with what role and status; CONSOLE_USERS and the sandbox demo users are a bootstrap into it.
CREATE TABLE IF NOT EXISTS "console_staff" (
	"email" text PRIMARY KEY NOT NULL,
	"role" text NOT NULL,
	"status" text NOT NULL,
	"source" text NOT NULL,
	"password_hash" text,
	"invited_by" text,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"updated_by" text,
	CONSTRAINT "console_staff_email_lower" CHECK ("email" = lower("email")),
	CONSTRAINT "console_staff_role" CHECK ("role" in ('viewer', 'support', 'trader', 'admin')),
	CONSTRAINT "console_staff_status" CHECK ("status" in ('invited', 'active', 'disabled'))
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_staff_seeded" (
	"email" text PRIMARY KEY NOT NULL,
	"seeded_at" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_staff_invitations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" text NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"accepted_at" timestamp (6) with time zone,
	"withdrawn_at" timestamp (6) with time zone,
	"withdrawn_by" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "console_staff_invitations_token_idx" ON "console_staff_invitations" USING btree ("token_hash");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_staff_invitations_email_idx" ON "console_staff_invitations" USING btree ("email");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_staff_settings" (
	"id" integer PRIMARY KEY NOT NULL,
	"passkey_roles" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp (6) with time zone NOT NULL,
	"updated_by" text
);
