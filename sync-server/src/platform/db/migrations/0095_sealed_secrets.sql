-- Platform folder: seals the platform's secrets (signing_keys, app_tokens) and the webhooks module's (webhook_subscriptions).
-- Secrets the server uses again are kept sealed with a key-encryption key held outside the database
-- (platform/secrets.ts: AES-256-GCM, REGISTER_KEK or DATA_DIR/kek.key). The clear columns stay for rows written
-- before this migration: the server seals them on start and empties them (identity.ts, webhooks/service.ts).
ALTER TABLE signing_keys ADD COLUMN private_jwk_sealed TEXT;
ALTER TABLE signing_keys ALTER COLUMN private_jwk DROP NOT NULL;
ALTER TABLE webhook_subscriptions ADD COLUMN secret_sealed TEXT;
ALTER TABLE webhook_subscriptions ALTER COLUMN secret DROP NOT NULL;
ALTER TABLE app_tokens ADD COLUMN webhook_secret_sealed TEXT;
