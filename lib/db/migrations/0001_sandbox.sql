CREATE TABLE "sandbox_balances" (
	"profile_id" uuid NOT NULL,
	"asset" text NOT NULL,
	"available" numeric(38, 18) DEFAULT '0' NOT NULL,
	"trading" numeric(38, 18) DEFAULT '0' NOT NULL,
	"updated_at" timestamp (6) with time zone NOT NULL,
	CONSTRAINT "sandbox_balances_pk" PRIMARY KEY("profile_id","asset"),
	CONSTRAINT "sandbox_balances_available_check" CHECK ("sandbox_balances"."available" >= 0),
	CONSTRAINT "sandbox_balances_trading_check" CHECK ("sandbox_balances"."trading" >= 0)
);
--> statement-breakpoint
CREATE TABLE "sandbox_clients" (
	"client_id" text PRIMARY KEY NOT NULL,
	"secret_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_conversions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"profile_id" uuid NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"source_asset" text NOT NULL,
	"target_asset" text NOT NULL,
	"status" text NOT NULL,
	"ref_id" text,
	"identity_id" text NOT NULL,
	"account_id" text NOT NULL,
	"metadata" jsonb,
	"recipient_profile_id" uuid,
	"created_at" timestamp (6) with time zone NOT NULL,
	"updated_at" timestamp (6) with time zone NOT NULL,
	"settled_at" timestamp (6) with time zone,
	"cancelled_at" timestamp (6) with time zone
);
--> statement-breakpoint
CREATE TABLE "sandbox_deposits" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"profile_id" uuid NOT NULL,
	"asset" text NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"crypto_network" text,
	"crypto_address" text,
	"created_at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_executions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"profile_id" uuid NOT NULL,
	"quote_id" uuid NOT NULL,
	"ref_id" text,
	"status" text NOT NULL,
	"market" text NOT NULL,
	"side" text NOT NULL,
	"price" numeric(38, 18) NOT NULL,
	"base_amount" numeric(38, 18) NOT NULL,
	"base_asset" text NOT NULL,
	"quote_amount" numeric(38, 18) NOT NULL,
	"quote_asset" text NOT NULL,
	"metadata" jsonb,
	"identity_id" text,
	"account_id" text,
	"recipient_profile_id" uuid,
	"client_id" text NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"settled_at" timestamp (6) with time zone
);
--> statement-breakpoint
CREATE TABLE "sandbox_prices" (
	"asset" text PRIMARY KEY NOT NULL,
	"mid_usd" numeric(38, 18) NOT NULL,
	"slot" bigint NOT NULL,
	"updated_at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_profiles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"nickname" text NOT NULL,
	"type" text NOT NULL,
	"description" text,
	"created_at" timestamp (6) with time zone NOT NULL,
	CONSTRAINT "sandbox_profiles_nickname_key" UNIQUE("nickname")
);
--> statement-breakpoint
CREATE TABLE "sandbox_quotes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"market" text NOT NULL,
	"side" text NOT NULL,
	"price" numeric(38, 18) NOT NULL,
	"mid" numeric(38, 18) NOT NULL,
	"base_asset" text NOT NULL,
	"quote_asset" text NOT NULL,
	"slot" bigint NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_settings" (
	"id" integer PRIMARY KEY NOT NULL,
	"seed" integer NOT NULL,
	"settle_delay_ms" integer NOT NULL,
	"rate_limits" boolean NOT NULL,
	"rules" jsonb NOT NULL,
	"env_seed" integer NOT NULL,
	"env_settle_delay_ms" integer NOT NULL,
	"env_rate_limits" boolean NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sandbox_balances" ADD CONSTRAINT "sandbox_balances_profile_id_sandbox_profiles_id_fk" FOREIGN KEY ("profile_id") REFERENCES "public"."sandbox_profiles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_conversions" ADD CONSTRAINT "sandbox_conversions_profile_id_sandbox_profiles_id_fk" FOREIGN KEY ("profile_id") REFERENCES "public"."sandbox_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_conversions" ADD CONSTRAINT "sandbox_conversions_recipient_profile_id_sandbox_profiles_id_fk" FOREIGN KEY ("recipient_profile_id") REFERENCES "public"."sandbox_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_deposits" ADD CONSTRAINT "sandbox_deposits_profile_id_sandbox_profiles_id_fk" FOREIGN KEY ("profile_id") REFERENCES "public"."sandbox_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_executions" ADD CONSTRAINT "sandbox_executions_profile_id_sandbox_profiles_id_fk" FOREIGN KEY ("profile_id") REFERENCES "public"."sandbox_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_executions" ADD CONSTRAINT "sandbox_executions_recipient_profile_id_sandbox_profiles_id_fk" FOREIGN KEY ("recipient_profile_id") REFERENCES "public"."sandbox_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_tokens" ADD CONSTRAINT "sandbox_tokens_client_id_sandbox_clients_client_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."sandbox_clients"("client_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_conversions_client_ref_idx" ON "sandbox_conversions" USING btree ("client_id","ref_id");--> statement-breakpoint
CREATE INDEX "sandbox_conversions_client_created_idx" ON "sandbox_conversions" USING btree ("client_id","created_at","id");--> statement-breakpoint
CREATE INDEX "sandbox_conversions_pending_idx" ON "sandbox_conversions" USING btree ("created_at") WHERE "sandbox_conversions"."status" = 'CREATED';--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_executions_profile_ref_idx" ON "sandbox_executions" USING btree ("profile_id","ref_id");--> statement-breakpoint
CREATE INDEX "sandbox_executions_profile_created_idx" ON "sandbox_executions" USING btree ("profile_id","created_at","id");--> statement-breakpoint
CREATE INDEX "sandbox_executions_pending_idx" ON "sandbox_executions" USING btree ("created_at") WHERE "sandbox_executions"."status" = 'CREATED';--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_quotes_market_side_slot_idx" ON "sandbox_quotes" USING btree ("market","side","slot");--> statement-breakpoint
CREATE INDEX "sandbox_quotes_expires_idx" ON "sandbox_quotes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "sandbox_tokens_expires_idx" ON "sandbox_tokens" USING btree ("expires_at");