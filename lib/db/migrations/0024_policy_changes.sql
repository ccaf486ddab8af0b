CREATE TABLE IF NOT EXISTS "console_policy_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"state" text NOT NULL,
	"policy" jsonb NOT NULL,
	"policy_digest" text NOT NULL,
	"base_version" integer NOT NULL,
	"proposed_by" text NOT NULL,
	"proposed_at" timestamp (6) with time zone NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"comment" text,
	"decided_by" text,
	"decided_at" timestamp (6) with time zone,
	"reason" text,
	"applied_version" integer,
	"single_admin" boolean DEFAULT false NOT NULL,
	"credential_id" text,
	"user_verified" boolean,
	"digest" text,
	CONSTRAINT "console_policy_changes_state" CHECK ("state" in ('PENDING', 'APPLIED', 'REJECTED', 'WITHDRAWN', 'STALE', 'EXPIRED'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "console_policy_changes_one_pending_idx" ON "console_policy_changes" USING btree ("state") WHERE "state" = 'PENDING';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_policy_changes_proposed_idx" ON "console_policy_changes" USING btree ("proposed_at" DESC);
