-- How the store serves (docs/decisions/0102-register-open-checks.md): 'retail' (the counter: ring up and pay at once),
-- 'restaurant' (the register opens on the floor plan: tables and tabs hold open checks) or 'both' (the register
-- switches between counter and floor). 'retail' by default, so existing stores are unchanged.
ALTER TABLE merchants ADD COLUMN service_style TEXT NOT NULL DEFAULT 'retail' CHECK (service_style IN ('retail', 'restaurant', 'both'));
