-- The maker's standing (lib/auth/standing.ts currentRoles) reads each unlisted maker's latest single sign-on by lower(email), newest first: without this index every approvals read scanned console_auth_events.
CREATE INDEX IF NOT EXISTS "console_auth_events_email_idx" ON "console_auth_events" USING btree (lower("email"),"at" DESC NULLS LAST,"id" DESC NULLS LAST);
