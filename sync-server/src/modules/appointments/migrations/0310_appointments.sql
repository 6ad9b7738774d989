-- Main owner: the appointments module. Salons, barbers and spas (core/appointments.ts, decision 0110): services with
-- their timing and prices per staff level, resources (chairs, rooms, basins), each staff member's working week, and
-- appointments whose busy parts hold the staff member and resources in appointment_holds. The exclusion constraint
-- there is what refuses a double booking: two holds of one staff member or one resource never overlap, whatever the
-- requests race (btree_gist lets the text columns share a GiST index with the time range).
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE appointment_services (
  id                     TEXT PRIMARY KEY,
  merchant_id            TEXT NOT NULL REFERENCES merchants (id),
  name                   TEXT NOT NULL,
  duration_minutes       INTEGER NOT NULL CHECK (duration_minutes BETWEEN 5 AND 720),
  processing_after_min   INTEGER,
  processing_minutes     INTEGER,
  buffer_after_minutes   INTEGER NOT NULL DEFAULT 0 CHECK (buffer_after_minutes >= 0),
  prices                 JSONB NOT NULL,
  resource_kinds         JSONB NOT NULL DEFAULT '[]',
  active                 BOOLEAN NOT NULL DEFAULT true,
  created_at             TIMESTAMPTZ NOT NULL,
  updated_at             TIMESTAMPTZ NOT NULL,
  CHECK ((processing_after_min IS NULL) = (processing_minutes IS NULL)),
  CHECK (processing_after_min IS NULL OR processing_after_min + processing_minutes < duration_minutes)
);
CREATE INDEX appointment_services_merchant ON appointment_services (merchant_id, name);

CREATE TABLE appointment_resources (
  id           TEXT PRIMARY KEY,
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  name         TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('chair', 'room', 'basin')),
  active       BOOLEAN NOT NULL DEFAULT true,
  created_at   TIMESTAMPTZ NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX appointment_resources_merchant ON appointment_resources (merchant_id, kind, name);

-- Wall-clock shifts per ISO weekday in the store's time zone; time off as instants.
CREATE TABLE staff_schedules (
  staff_id     TEXT PRIMARY KEY REFERENCES staff (id),
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  level        TEXT NOT NULL,
  shifts       JSONB NOT NULL,
  time_off     JSONB NOT NULL DEFAULT '[]',
  updated_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX staff_schedules_merchant ON staff_schedules (merchant_id);

CREATE TABLE appointments (
  id             TEXT PRIMARY KEY,
  merchant_id    TEXT NOT NULL REFERENCES merchants (id),
  service_id     TEXT NOT NULL REFERENCES appointment_services (id),
  staff_id       TEXT NOT NULL REFERENCES staff (id),
  customer_id    TEXT,
  customer_name  TEXT,
  starts_at      TIMESTAMPTZ NOT NULL,
  ends_at        TIMESTAMPTZ NOT NULL CHECK (ends_at > starts_at),
  status         TEXT NOT NULL CHECK (status IN ('booked', 'arrived', 'no_show', 'cancelled')),
  price_cents    BIGINT NOT NULL CHECK (price_cents >= 0),
  resource_ids   JSONB NOT NULL DEFAULT '[]',
  parts          JSONB NOT NULL,
  note           TEXT,
  created_at     TIMESTAMPTZ NOT NULL,
  updated_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX appointments_day ON appointments (merchant_id, starts_at);

-- One row per busy part per holder (the staff member: work and buffer; each resource: every part). A cancelled or
-- no-show appointment's holds are deleted, so its time is free again.
CREATE TABLE appointment_holds (
  merchant_id     TEXT NOT NULL REFERENCES merchants (id),
  appointment_id  TEXT NOT NULL REFERENCES appointments (id),
  holder_kind     TEXT NOT NULL CHECK (holder_kind IN ('staff', 'resource')),
  holder_id       TEXT NOT NULL,
  part            TEXT NOT NULL CHECK (part IN ('work', 'processing', 'buffer')),
  during          TSTZRANGE NOT NULL CHECK (NOT isempty(during)),
  CONSTRAINT appointment_holds_no_overlap EXCLUDE USING gist (merchant_id WITH =, holder_id WITH =, during WITH &&)
);
CREATE INDEX appointment_holds_appointment ON appointment_holds (appointment_id);
