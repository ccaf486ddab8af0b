ALTER TABLE "console_intents" ALTER COLUMN "ref_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "console_intents" ADD COLUMN "target_id" text;--> statement-breakpoint
-- A cancel's key was kept in ref_id; it moves to target_id, and ref_id holds ref_ids only.
UPDATE "console_intents" SET "target_id" = "ref_id", "ref_id" = NULL WHERE "operation" = 'cancel_conversion';--> statement-breakpoint
ALTER TABLE "console_intents" ADD CONSTRAINT "console_intents_key_check" CHECK (("console_intents"."operation" = 'cancel_conversion' and "console_intents"."target_id" is not null and "console_intents"."ref_id" is null) or ("console_intents"."operation" <> 'cancel_conversion' and "console_intents"."ref_id" is not null and "console_intents"."target_id" is null));