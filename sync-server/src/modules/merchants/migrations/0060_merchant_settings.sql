-- Store settings (GET/PATCH /api/pos/settings): the country a phone number typed without "+" belongs to
-- (ISO 3166-1 alpha-2). The time zone is merchants.time_zone (0040).
ALTER TABLE merchants ADD COLUMN default_country TEXT NOT NULL DEFAULT 'US' CHECK (default_country ~ '^[A-Z]{2}$');
