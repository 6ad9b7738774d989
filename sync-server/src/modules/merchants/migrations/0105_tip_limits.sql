-- The store's tip bound (GET/PATCH /api/pos/settings; docs/decisions/0006-money-rules-at-the-edges.md): a tip may be at most the larger
-- of tip_limit_basis_points of the order's total and tip_limit_cents (minor units). Default: 50 % or 100.00.
ALTER TABLE merchants
  ADD COLUMN tip_limit_basis_points INTEGER NOT NULL DEFAULT 5000 CHECK (tip_limit_basis_points BETWEEN 0 AND 100000),
  ADD COLUMN tip_limit_cents INTEGER NOT NULL DEFAULT 10000 CHECK (tip_limit_cents BETWEEN 0 AND 99999999);
