CREATE TABLE "console_intents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"staff_email" text NOT NULL,
	"staff_role" text NOT NULL,
	"operation" text NOT NULL,
	"profile_id" text,
	"ref_id" text NOT NULL,
	"request" jsonb NOT NULL,
	"state" text DEFAULT 'PENDING' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"record_id" text,
	"record_status" text,
	"problem" jsonb,
	"resolved_at" timestamp (6) with time zone
);
--> statement-breakpoint
CREATE INDEX "console_intents_created_idx" ON "console_intents" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "console_intents_unresolved_idx" ON "console_intents" USING btree ("state","updated_at") WHERE "console_intents"."state" in ('PENDING', 'UNKNOWN');--> statement-breakpoint
CREATE INDEX "console_intents_staff_idx" ON "console_intents" USING btree ("staff_email","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "console_intents_create_ref_idx" ON "console_intents" USING btree ("operation","ref_id") WHERE "console_intents"."operation" <> 'cancel_conversion';