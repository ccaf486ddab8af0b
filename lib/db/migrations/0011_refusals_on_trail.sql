-- Refusals on the audit trail: a create the console refused before anything was sent
-- (over a limit, a request that failed validation, no held quote) is an intent in state
-- REFUSED. It holds no ref_id (its ref_id stays free for a corrected order; the request
-- keeps the one that was sent), and an intent records the market and side it was for.
ALTER TABLE "console_intents" ADD COLUMN IF NOT EXISTS "market" text;--> statement-breakpoint
ALTER TABLE "console_intents" ADD COLUMN IF NOT EXISTS "side" text;--> statement-breakpoint
ALTER TABLE "console_intents" DROP CONSTRAINT IF EXISTS "console_intents_key_check";--> statement-breakpoint
ALTER TABLE "console_intents" ADD CONSTRAINT "console_intents_key_check" CHECK (("console_intents"."operation" in ('cancel_conversion', 'update_policy') and "console_intents"."target_id" is not null and "console_intents"."ref_id" is null) or ("console_intents"."operation" not in ('cancel_conversion', 'update_policy') and "console_intents"."target_id" is null and ("console_intents"."ref_id" is not null or "console_intents"."state" = 'REFUSED')));
