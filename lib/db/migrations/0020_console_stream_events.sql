-- Issue 37: the record status changes pushed on GET /api/stream, in the order they were
-- committed, kept a while so a stream that reconnects with Last-Event-ID is sent exactly
-- what it missed. Written by a trigger on console_intents: every path that changes an
-- intent's state or final status (placement, reconciler, notifications, the event reader)
-- is covered, on every instance. Updates only: a placement's first row is written inside its
-- admission transaction, which must not wait on this trigger's lock. Additive: a new table, a new function, a new trigger.
CREATE TABLE IF NOT EXISTS "console_stream_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"staff_email" text NOT NULL,
	"record_id" text,
	"payload" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "console_stream_events_at_idx" ON "console_stream_events" USING btree ("at");
--> statement-breakpoint
CREATE OR REPLACE FUNCTION console_stream_intent_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	new_id bigint;
BEGIN
	IF NEW.operation NOT IN ('create_execution', 'create_conversion', 'cancel_conversion') THEN
		RETURN NEW;
	END IF;
	IF NEW.state IS NOT DISTINCT FROM OLD.state
		AND NEW.record_status IS NOT DISTINCT FROM OLD.record_status
		AND NEW.record_final_status IS NOT DISTINCT FROM OLD.record_final_status THEN
		RETURN NEW;
	END IF;
	-- One writer at a time until commit: ids are committed in their order, so a reader
	-- that has seen id N has seen every id below it (no gap on resume).
	PERFORM pg_advisory_xact_lock(3700037);
	INSERT INTO console_stream_events (staff_email, record_id, payload)
	VALUES (NEW.staff_email, COALESCE(NEW.record_id, NEW.target_id), jsonb_build_object(
		'intent_id', NEW.id,
		'operation', NEW.operation,
		'profile_id', NEW.profile_id,
		'record_id', COALESCE(NEW.record_id, NEW.target_id),
		'state', NEW.state,
		'record_status', NEW.record_status,
		'final_status', NEW.record_final_status,
		'at', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
	))
	RETURNING id INTO new_id;
	PERFORM pg_notify('console_stream', new_id::text);
	RETURN NEW;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "console_stream_intent_changed" ON "console_intents";
--> statement-breakpoint
CREATE TRIGGER "console_stream_intent_changed" AFTER UPDATE ON "console_intents"
	FOR EACH ROW EXECUTE FUNCTION console_stream_intent_changed();
