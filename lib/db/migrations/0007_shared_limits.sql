CREATE TABLE "console_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seen_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_quote_feed" (
	"id" integer PRIMARY KEY NOT NULL,
	"holder" text,
	"lease_until" bigint DEFAULT 0 NOT NULL,
	"wanted_until" bigint DEFAULT 0 NOT NULL,
	"snapshot" jsonb,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_rate_buckets" (
	"bucket" text PRIMARY KEY NOT NULL,
	"slots" bigint[] DEFAULT '{}' NOT NULL,
	"blocked_until" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "console_rate_buckets" ("bucket") VALUES ('token'), ('quote_executions'), ('other') ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "console_quote_feed" ("id") VALUES (1) ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Reserves the earliest send time for one request in a bucket: at most p_limit sends in any
-- p_window_ms, and at least p_pace_ms after the bucket's last send (a burst leaves as an
-- even stream, so the varying time a request takes to reach the service does not bunch
-- more than p_limit sends into one window at the other end).
-- Waiters queue on the bucket's row lock, so they are served in arrival order.
-- Returns the wait in ms (>= 0), or minus the wait when it would exceed p_max_wait_ms
-- (nothing is reserved then). Time is the database's clock unless p_now is given.
CREATE OR REPLACE FUNCTION console_rate_acquire(p_bucket text, p_limit integer, p_window_ms bigint, p_pace_ms bigint, p_max_wait_ms bigint, p_now bigint DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_slots bigint[];
  v_blocked bigint;
  v_now bigint;
  v_at bigint;
  v_n integer;
BEGIN
  INSERT INTO console_rate_buckets (bucket) VALUES (p_bucket) ON CONFLICT DO NOTHING;
  SELECT b.slots, b.blocked_until INTO v_slots, v_blocked FROM console_rate_buckets b WHERE b.bucket = p_bucket FOR UPDATE;
  -- Read the clock once the lock is held: a caller that queued must not reserve in the past.
  v_now := coalesce(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
  v_slots := array(SELECT s FROM unnest(v_slots) AS s WHERE s > v_now - p_window_ms ORDER BY s);
  v_n := coalesce(array_length(v_slots, 1), 0);
  v_at := greatest(v_now, v_blocked);
  IF p_limit > 0 AND v_n >= p_limit THEN
    v_at := greatest(v_at, v_slots[v_n - p_limit + 1] + p_window_ms);
  END IF;
  IF p_limit > 0 AND v_n > 0 THEN
    v_at := greatest(v_at, v_slots[v_n] + p_pace_ms);
  END IF;
  IF v_at - v_now > p_max_wait_ms THEN
    UPDATE console_rate_buckets SET slots = v_slots WHERE bucket = p_bucket;
    RETURN -(v_at - v_now);
  END IF;
  IF p_limit > 0 THEN
    v_slots := array(SELECT s FROM unnest(array_append(v_slots, v_at)) AS s ORDER BY s);
  END IF;
  UPDATE console_rate_buckets SET slots = v_slots WHERE bucket = p_bucket;
  RETURN v_at - v_now;
END
$$;
--> statement-breakpoint
-- The service answered 429 with Retry-After: nobody sends in this bucket for p_ms.
CREATE OR REPLACE FUNCTION console_rate_pause(p_bucket text, p_ms bigint, p_now bigint DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO console_rate_buckets (bucket) VALUES (p_bucket) ON CONFLICT DO NOTHING;
  UPDATE console_rate_buckets
     SET blocked_until = greatest(blocked_until, coalesce(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) + p_ms)
   WHERE bucket = p_bucket;
END
$$;
