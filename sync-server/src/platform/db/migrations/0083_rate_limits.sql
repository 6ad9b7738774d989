-- Rate-limit counters shared by every server instance on one PostgreSQL, written by
-- rate-limiter-flexible's RateLimiterPostgres (platform/rate-limit.ts): one row per policy and partition
-- (`rl_app:<merchant>:<app>`), `points` spent in the window ending at `expire` (Unix ms). Unused on PGlite.
CREATE TABLE IF NOT EXISTS rate_limits (
  key VARCHAR(255) PRIMARY KEY,
  points INTEGER NOT NULL DEFAULT 0,
  expire BIGINT
);
