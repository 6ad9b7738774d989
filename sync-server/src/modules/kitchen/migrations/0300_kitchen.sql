-- Main owner: the kitchen module. A restaurant's kitchen set-up (core/kitchen-display.ts): one document per store with
-- its stations, the routing of items and categories to them and the ticket age thresholds, saved whole with a version
-- (a save names the version it was edited from); and each bump and recall of a ticket on a station's display, kept
-- as a trail (the ticket's state is its latest event), which ticket times (fire → bump) are read from.
CREATE TABLE kitchen_setups (
  merchant_id  TEXT PRIMARY KEY REFERENCES merchants (id),
  version      INTEGER NOT NULL CHECK (version > 0),
  setup        JSONB NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL
);

CREATE TABLE kitchen_ticket_events (
  id           TEXT NOT NULL,
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  station_id   TEXT NOT NULL,
  send_id      TEXT NOT NULL,
  action       TEXT NOT NULL CHECK (action IN ('bump', 'recall')),
  at           TIMESTAMPTZ NOT NULL,
  register_id  TEXT,
  staff_id     TEXT,
  PRIMARY KEY (merchant_id, id)
);
CREATE INDEX kitchen_ticket_events_ticket ON kitchen_ticket_events (merchant_id, send_id, station_id, id);
