-- Reports (docs/api.md "Reports"): a merchant's business days and hours are counted in its own IANA time zone.
-- Default UTC; reports accept ?timeZone= to override it per request.
ALTER TABLE merchants ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
