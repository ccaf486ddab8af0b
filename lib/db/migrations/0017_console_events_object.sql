CREATE INDEX IF NOT EXISTS "console_events_object_idx" ON "console_events" USING btree ("object_id","created_at");
