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
