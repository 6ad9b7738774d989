-- Staff signed in by an external OpenID Connect issuer (platform/auth/external-oidc.ts). One row per
-- (issuer, subject), linked to one staff member the first time the subject signs in with a verified e-mail.
CREATE TABLE staff_identities (
  issuer      TEXT NOT NULL,
  subject     TEXT NOT NULL,
  staff_id    TEXT NOT NULL REFERENCES staff (id),
  merchant_id TEXT NOT NULL REFERENCES merchants (id),
  linked_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX staff_identities_staff ON staff_identities (merchant_id, staff_id);
