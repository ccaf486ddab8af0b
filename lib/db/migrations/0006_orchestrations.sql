CREATE TABLE "sandbox_orchestrations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"source_profile_id" uuid NOT NULL,
	"destination_profile_id" uuid NOT NULL,
	"source_amount" numeric(38, 18) NOT NULL,
	"source_asset" text NOT NULL,
	"destination_asset" text NOT NULL,
	"status" text NOT NULL,
	"ref_id" text NOT NULL,
	"identity_id" text NOT NULL,
	"account_id" text NOT NULL,
	"metadata" jsonb,
	"source_transfer_id" uuid NOT NULL,
	"destination_transfer_id" uuid NOT NULL,
	"fail_detail" text,
	"created_at" timestamp (6) with time zone NOT NULL,
	"updated_at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sandbox_orchestrations" ADD CONSTRAINT "sandbox_orchestrations_source_profile_id_sandbox_profiles_id_fk" FOREIGN KEY ("source_profile_id") REFERENCES "public"."sandbox_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_orchestrations" ADD CONSTRAINT "sandbox_orchestrations_destination_profile_id_sandbox_profiles_id_fk" FOREIGN KEY ("destination_profile_id") REFERENCES "public"."sandbox_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_orchestrations_client_ref_idx" ON "sandbox_orchestrations" USING btree ("client_id","ref_id");--> statement-breakpoint
CREATE INDEX "sandbox_orchestrations_client_created_idx" ON "sandbox_orchestrations" USING btree ("client_id","created_at","id");--> statement-breakpoint
CREATE INDEX "sandbox_orchestrations_pending_idx" ON "sandbox_orchestrations" USING btree ("created_at") WHERE "sandbox_orchestrations"."status" = 'PROCESSING';--> statement-breakpoint
ALTER TABLE "console_intents" ADD COLUMN "upstream_api" text;
--> statement-breakpoint
CREATE TABLE "console_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL
);
