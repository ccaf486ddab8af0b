CREATE TABLE IF NOT EXISTS "console_served_quotes" (
	"staff_email" text NOT NULL,
	"quote_id" text NOT NULL,
	"market" text NOT NULL,
	"side" text NOT NULL,
	"price" text NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"served_at" timestamp (6) with time zone NOT NULL,
	"remember_until" timestamp (6) with time zone NOT NULL,
	CONSTRAINT "console_served_quotes_pk" PRIMARY KEY("staff_email","quote_id")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_served_quotes_until_idx" ON "console_served_quotes" USING btree ("remember_until");
