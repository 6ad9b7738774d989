-- Image generation: each merchant's credit balance and the images generated, kept 7 days.

-- One row per merchant, created on first use with the starting grant (IMAGE_STARTING_CREDITS, default 50 — so the
-- demo store starts with 50). The CHECK is the last line of defence: the deducting UPDATE is guarded too.
CREATE TABLE merchant_credits (
  merchant_id TEXT PRIMARY KEY REFERENCES merchants (id),
  balance     INTEGER NOT NULL CHECK (balance >= 0),
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- One row per generated PNG. The file lives in the image store under file_key until purged; the row stays (with
-- purged_at set) so an expired url answers 410, not 404, and usage stays auditable.
CREATE TABLE generated_images (
  id           TEXT PRIMARY KEY,
  merchant_id  TEXT NOT NULL REFERENCES merchants (id),
  file_key     TEXT NOT NULL UNIQUE,
  prompt       TEXT NOT NULL,
  style        TEXT NOT NULL,
  aspect       TEXT NOT NULL,
  image_index  INTEGER NOT NULL,
  width        INTEGER NOT NULL,
  height       INTEGER NOT NULL,
  byte_size    INTEGER NOT NULL,
  generator    TEXT NOT NULL,
  -- who asked: 'staff:<id>' or 'app:<id>'
  requested_by TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL,
  expires_at   TIMESTAMPTZ NOT NULL,
  purged_at    TIMESTAMPTZ
);

CREATE INDEX generated_images_merchant ON generated_images (merchant_id, created_at);
CREATE INDEX generated_images_due ON generated_images (expires_at) WHERE purged_at IS NULL;

-- Permanent copies of generated images that a merchant keeps (e.g. as a catalog item's picture). Generated images
-- are served 7 days, and callers who need them longer store copies: this is where the back office
-- stores them. Never purged; served at /api/v1/media/<id>.png.
CREATE TABLE kept_images (
  id              TEXT PRIMARY KEY,
  merchant_id     TEXT NOT NULL REFERENCES merchants (id),
  file_key        TEXT NOT NULL UNIQUE,
  source_image_id TEXT NOT NULL REFERENCES generated_images (id),
  width           INTEGER NOT NULL,
  height          INTEGER NOT NULL,
  byte_size       INTEGER NOT NULL,
  kept_by         TEXT NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL
);

CREATE INDEX kept_images_merchant ON kept_images (merchant_id, created_at);
