-- Issue 37: the rest of what an open page used to poll for is pushed on GET /api/stream.
-- These triggers NOTIFY `console_topics` when something a stream topic shows changed, on
-- whichever instance (or the event reader, the outbox, the reconciler) changed it; every
-- instance's stream hub LISTENs and reads the topic again for its streams. Nothing is
-- stored: a topic is a snapshot (the inbox, the approvals count, the overview) or read from
-- its own cursor (notifications), so a stream that (re)opens is sent the current state.
-- Payloads: `inbox:<email>`, `inbox` (every inbox), `approvals:<maker email>`, `overview`,
-- `notifications:<email>`. Postgres sends one notification per distinct payload per
-- transaction. Additive: functions and triggers only.
CREATE OR REPLACE FUNCTION console_topic_inbox_recipient() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		PERFORM pg_notify('console_topics', 'inbox:' || lower(OLD.email));
		RETURN OLD;
	END IF;
	IF TG_OP = 'UPDATE' AND NEW.read_at IS NOT DISTINCT FROM OLD.read_at AND NEW.email = OLD.email THEN
		RETURN NEW;
	END IF;
	PERFORM pg_notify('console_topics', 'inbox:' || lower(NEW.email));
	RETURN NEW;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "console_topic_inbox_recipient" ON "console_notification_recipients";
--> statement-breakpoint
CREATE TRIGGER "console_topic_inbox_recipient" AFTER INSERT OR UPDATE OR DELETE ON "console_notification_recipients"
	FOR EACH ROW EXECUTE FUNCTION console_topic_inbox_recipient();
--> statement-breakpoint
-- A notification resolved (someone else acted on it) changes every recipient's inbox.
CREATE OR REPLACE FUNCTION console_topic_inbox_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('console_topics', 'inbox');
	RETURN NULL;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "console_topic_inbox_changed" ON "console_notifications";
--> statement-breakpoint
CREATE TRIGGER "console_topic_inbox_changed" AFTER UPDATE OR DELETE ON "console_notifications"
	FOR EACH STATEMENT EXECUTE FUNCTION console_topic_inbox_changed();
--> statement-breakpoint
-- A request made, decided, expired or placed: everyone's approvals count, and the maker's notifications.
CREATE OR REPLACE FUNCTION console_topic_approval_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.state IS NOT DISTINCT FROM OLD.state AND NEW.decided_at IS NOT DISTINCT FROM OLD.decided_at THEN
		RETURN NEW;
	END IF;
	PERFORM pg_notify('console_topics', 'approvals:' || lower(NEW.maker_email));
	RETURN NEW;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "console_topic_approval_changed" ON "console_approvals";
--> statement-breakpoint
CREATE TRIGGER "console_topic_approval_changed" AFTER INSERT OR UPDATE ON "console_approvals"
	FOR EACH ROW EXECUTE FUNCTION console_topic_approval_changed();
--> statement-breakpoint
-- A placement's state or final status: the overview's activity, and its maker's notifications.
-- On UPDATE only, as 0020's trigger: an admission's INSERT is followed by its state's update
-- (PLACED, FAILED, ...) moments later, and a NOTIFY in the admission's own transaction would
-- serialise every admission's commit behind Postgres's notify queue lock.
CREATE OR REPLACE FUNCTION console_topic_intent_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.operation NOT IN ('create_execution', 'create_conversion', 'cancel_conversion') THEN
		RETURN NEW;
	END IF;
	IF NEW.state IS NOT DISTINCT FROM OLD.state
		AND NEW.record_status IS NOT DISTINCT FROM OLD.record_status
		AND NEW.record_final_status IS NOT DISTINCT FROM OLD.record_final_status THEN
		RETURN NEW;
	END IF;
	PERFORM pg_notify('console_topics', 'overview');
	IF NEW.record_final_status IS DISTINCT FROM OLD.record_final_status THEN
		PERFORM pg_notify('console_topics', 'notifications:' || lower(NEW.staff_email));
	END IF;
	RETURN NEW;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "console_topic_intent_changed" ON "console_intents";
--> statement-breakpoint
CREATE TRIGGER "console_topic_intent_changed" AFTER UPDATE ON "console_intents"
	FOR EACH ROW EXECUTE FUNCTION console_topic_intent_changed();
--> statement-breakpoint
-- An event of the service processed with an effect on the overview (a deposit in the live feed, balances moved).
CREATE OR REPLACE FUNCTION console_topic_event_processed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.status = 'processed' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status OR OLD.effects IS DISTINCT FROM NEW.effects) THEN
		PERFORM pg_notify('console_topics', 'overview');
	END IF;
	RETURN NEW;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "console_topic_event_processed" ON "console_events";
--> statement-breakpoint
CREATE TRIGGER "console_topic_event_processed" AFTER INSERT OR UPDATE ON "console_events"
	FOR EACH ROW EXECUTE FUNCTION console_topic_event_processed();
