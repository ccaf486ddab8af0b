ALTER TABLE "console_intents" ADD COLUMN IF NOT EXISTS "record_final_status" text;--> statement-breakpoint
ALTER TABLE "console_intents" ADD COLUMN IF NOT EXISTS "record_final_at" timestamp (6) with time zone;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_intents_final_idx" ON "console_intents" USING btree ("staff_email","record_final_at") WHERE "console_intents"."record_final_at" is not null;
