ALTER TABLE "console_approvals" ADD COLUMN IF NOT EXISTS "required_approvals" integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
ALTER TABLE "console_approvals" ADD COLUMN IF NOT EXISTS "approver_roles" jsonb;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_approval_votes" (
	"intent_id" uuid NOT NULL REFERENCES "console_approvals"("intent_id"),
	"staff_email" text NOT NULL,
	"staff_role" text NOT NULL,
	"at" timestamp (6) with time zone NOT NULL,
	"credential_id" text,
	"user_verified" boolean,
	"digest" text,
	"comment" text,
	CONSTRAINT "console_approval_votes_pk" PRIMARY KEY("intent_id","staff_email")
);
--> statement-breakpoint
ALTER TABLE "console_approvals" ADD COLUMN IF NOT EXISTS "policy_version" integer;
--> statement-breakpoint
ALTER TABLE "console_policy" ADD COLUMN IF NOT EXISTS "version" integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "console_policy_versions" (
	"version" integer PRIMARY KEY NOT NULL,
	"policy" jsonb NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"created_by" text NOT NULL
);
--> statement-breakpoint
INSERT INTO "console_policy_versions" ("version", "policy", "created_at", "created_by")
	SELECT "version", "policy", "updated_at", "updated_by" FROM "console_policy" WHERE "id" = 1
	ON CONFLICT DO NOTHING;
