-- Single-use tickets for the replication SSE stream (platform/auth/stream-tickets.ts): EventSource cannot send an
-- Authorization header, so a register asks for a ticket with its credential and opens the stream with `?ticket=`.
-- A ticket lives 30 seconds and is deleted when used; only its SHA-256 is stored. Shared by every server instance.
CREATE TABLE stream_tickets (
  ticket_hash TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  principal   JSONB NOT NULL,                    -- the caller the ticket stands for (platform/auth/identity.ts Principal)
  expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX stream_tickets_expiry ON stream_tickets (expires_at);
