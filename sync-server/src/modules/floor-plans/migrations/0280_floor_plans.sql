-- Main owner: the floor-plans module. A restaurant's floor plan (core/floor-plan.ts): one document per store, its
-- areas and tables, saved whole with a version that goes up by one at each save (a save names the version it was
-- edited from, so two editors never silently undo each other). Open checks name tables by their ids.
CREATE TABLE floor_plans (
  merchant_id  TEXT PRIMARY KEY REFERENCES merchants (id),
  version      INTEGER NOT NULL CHECK (version > 0),
  areas        JSONB NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL
);
