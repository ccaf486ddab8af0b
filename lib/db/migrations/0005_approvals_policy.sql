CREATE TABLE "console_approvals" (
	"intent_id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"state" text DEFAULT 'PENDING' NOT NULL,
	"maker_email" text NOT NULL,
	"maker_role" text NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"request" jsonb NOT NULL,
	"size_amount" numeric NOT NULL,
	"size_currency" text NOT NULL,
	"market" text,
	"side" text,
	"reviewed_price" numeric,
	"limit_price" numeric,
	"checker_email" text,
	"checker_role" text,
	"decided_at" timestamp (6) with time zone,
	"comment" text,
	"reason" text,
	"executed_price" numeric
);
--> statement-breakpoint
CREATE TABLE "console_policy" (
	"id" integer PRIMARY KEY NOT NULL,
	"policy" jsonb NOT NULL,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "console_intents" DROP CONSTRAINT "console_intents_key_check";--> statement-breakpoint
ALTER TABLE "console_intents" ADD COLUMN "size_amount" numeric;--> statement-breakpoint
ALTER TABLE "console_intents" ADD COLUMN "size_currency" text;--> statement-breakpoint
ALTER TABLE "console_approvals" ADD CONSTRAINT "console_approvals_intent_id_console_intents_id_fk" FOREIGN KEY ("intent_id") REFERENCES "public"."console_intents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_approvals_state_idx" ON "console_approvals" USING btree ("state","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "console_approvals_maker_idx" ON "console_approvals" USING btree ("maker_email","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "console_intents_usage_idx" ON "console_intents" USING btree ("staff_email","size_currency","created_at") WHERE "console_intents"."size_amount" is not null;--> statement-breakpoint
ALTER TABLE "console_intents" ADD CONSTRAINT "console_intents_key_check" CHECK (("console_intents"."operation" in ('cancel_conversion', 'update_policy') and "console_intents"."target_id" is not null and "console_intents"."ref_id" is null) or ("console_intents"."operation" not in ('cancel_conversion', 'update_policy') and "console_intents"."ref_id" is not null and "console_intents"."target_id" is null));