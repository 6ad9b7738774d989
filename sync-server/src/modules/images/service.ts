import { ulid } from 'ulid';
import type { GeneratedImage, ImageAspect, ImageGenerator, ImageStyle } from './generator.ts';
import type { ImageStore } from './store.ts';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { actorFromString, mutation } from '../../kernel/mutation.ts';
import type { AppContext } from '../../platform/context.ts';

/**
 * Image generation as a service, free of HTTP: credits, generation, storage, retention and purge. The
 * route in routes.ts maps its results and errors to HTTP.
 */

/** How long a generated image is served: 7 days after generation (docs/images.md "Serving, retention and purge"). */
export const IMAGE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Credits a merchant starts with when its balance is first used, unless configured (the demo store gets these). */
export const DEFAULT_STARTING_CREDITS = 50;
/** Credits charged per generated image (docs/images.md "Credits"). */
export const CREDITS_PER_IMAGE = 1;

/** The SQL surface this module needs: the server's `Db` or its transaction handle. */
type SqlClient = Queryable;

/** The merchant's balance is smaller than the number of images asked for; nothing was generated or charged. */
export class InsufficientCreditsError extends Error {
  override readonly name = 'InsufficientCreditsError';
  constructor(
    readonly balance: number,
    readonly required: number,
  ) {
    super(`image generation needs ${required} credit(s); the balance is ${balance}`);
  }
}

/** A validated generation request (see routes.ts for the schema). */
export interface GenerateRequest {
  prompt: string;
  style: ImageStyle;
  aspect: ImageAspect;
  n: number;
}

/** One stored image as returned to the caller. `id` names it in `GET /api/v1/images/{id}.png`. */
export interface StoredImage {
  id: string;
  width: number;
  height: number;
  createdAt: Date;
  expiresAt: Date;
}

/** Everything {@link generateImages} needs. `now` is the injected clock (milliseconds since the epoch). */
export interface ImageServiceDeps {
  db: Db;
  /** The change feed that {@link mutation} tells after a commit (image writes mark no replicated collection). */
  feed: AppContext['feed'];
  generator: ImageGenerator;
  store: ImageStore;
  now: () => number;
  /** Starting grant for a merchant without a credits row; default {@link DEFAULT_STARTING_CREDITS}. */
  startingCredits?: number;
}

/** A new image id: `img_` + ULID (core's id prefixes have no image kind; the shape is the same). */
export function newImageId(): string {
  return `img_${ulid()}`;
}

/** True when `id` has the shape of an image id. */
export function isImageId(id: string): boolean {
  return /^img_[0-9A-HJKMNP-TV-Z]{26}$/.test(id);
}

/**
 * Creates the merchant's credits row with the starting grant if there is none yet; idempotent and safe under
 * concurrency (`ON CONFLICT DO NOTHING`).
 */
export async function ensureCredits(db: SqlClient, merchantId: string, startingCredits = DEFAULT_STARTING_CREDITS): Promise<void> {
  await db.query('INSERT INTO merchant_credits (merchant_id, balance) VALUES ($1, $2) ON CONFLICT (merchant_id) DO NOTHING', [
    merchantId,
    startingCredits,
  ]);
}

/** The merchant's credit balance (an integer ≥ 0), creating the row with the starting grant on first use. */
export async function getCreditBalance(db: SqlClient, merchantId: string, startingCredits = DEFAULT_STARTING_CREDITS): Promise<number> {
  await ensureCredits(db, merchantId, startingCredits);
  const { rows } = await db.query<{ balance: number }>('SELECT balance FROM merchant_credits WHERE merchant_id = $1', [merchantId]);
  return Number(rows[0]?.balance ?? 0);
}

/**
 * Sets the merchant's balance (back-office top-up, demo seeding, tests). `balance` must be an integer ≥ 0; throws a
 * `RangeError` otherwise.
 */
export async function setCreditBalance(db: SqlClient, merchantId: string, balance: number): Promise<void> {
  if (!Number.isSafeInteger(balance) || balance < 0) throw new RangeError('balance must be an integer ≥ 0');
  await db.query(
    `INSERT INTO merchant_credits (merchant_id, balance, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (merchant_id) DO UPDATE SET balance = EXCLUDED.balance, updated_at = now()`,
    [merchantId, balance],
  );
}

/**
 * Generates `request.n` images for a merchant and charges `n` credits, all or nothing:
 *
 * 1. the balance must cover `n`, else {@link InsufficientCreditsError} (nothing generated, nothing charged);
 * 2. all `n` images are generated (index 0 … n−1); a provider failure throws its `ProviderError` and charges nothing;
 * 3. the PNGs are written to the store;
 * 4. one database transaction deducts `n` credits — guarded with `balance >= n` so concurrent requests can never drive
 *    the balance negative (the loser gets {@link InsufficientCreditsError}) — and inserts one `generated_images` row
 *    per image with `expires_at = created_at + 7 days`, plus an `images.generated` audit row.
 *
 * When step 4 fails the stored files are deleted again. Returns the images in index order and the new balance.
 */
/** `requestedBy` is the caller as in audit rows: `staff:<id>` or `app:<id>`. */
export async function generateImages(
  deps: ImageServiceDeps,
  merchantId: string,
  requestedBy: string,
  request: GenerateRequest,
): Promise<{ images: StoredImage[]; creditsUsed: number; balance: number }> {
  const cost = request.n * CREDITS_PER_IMAGE;
  const balanceBefore = await getCreditBalance(deps.db, merchantId, deps.startingCredits);
  if (balanceBefore < cost) throw new InsufficientCreditsError(balanceBefore, cost);

  const generated: GeneratedImage[] = await Promise.all(
    Array.from({ length: request.n }, (_, index) =>
      deps.generator.generate({ prompt: request.prompt, style: request.style, aspect: request.aspect, index }),
    ),
  );

  const ids = generated.map(() => newImageId());
  const keys = ids.map((id) => `${id}.png`);
  await Promise.all(generated.map((image, i) => deps.store.put(keys[i] as string, image.png)));

  const createdAt = new Date(deps.now());
  const expiresAt = new Date(createdAt.getTime() + IMAGE_RETENTION_MS);
  try {
    const balance = await mutation({ db: deps.db, feed: deps.feed, clock: () => createdAt }, actorFromString(merchantId, requestedBy), async (m) => {
      const tx = m.tx;
      const charged = await tx.query<{ balance: number }>(
        `UPDATE merchant_credits SET balance = balance - $2, updated_at = now()
         WHERE merchant_id = $1 AND balance >= $2 RETURNING balance`,
        [merchantId, cost],
      );
      if (charged.rows.length === 0) {
        const current = await tx.query<{ balance: number }>('SELECT balance FROM merchant_credits WHERE merchant_id = $1', [merchantId]);
        throw new InsufficientCreditsError(Number(current.rows[0]?.balance ?? 0), cost);
      }
      for (const [i, image] of generated.entries()) {
        await tx.query(
          `INSERT INTO generated_images (id, merchant_id, file_key, prompt, style, aspect, image_index, width, height,
             byte_size, generator, requested_by, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
          [
            ids[i],
            merchantId,
            keys[i],
            request.prompt,
            request.style,
            request.aspect,
            i,
            image.width,
            image.height,
            image.png.length,
            deps.generator.name,
            requestedBy,
            createdAt.toISOString(),
            expiresAt.toISOString(),
          ],
        );
      }
      const balance = Number(charged.rows[0]?.balance);
      await m.audit({
        registerId: null,
        action: 'images.generated',
        entityType: 'generated_image',
        entityId: ids[0] as string,
        data: { imageIds: ids, style: request.style, aspect: request.aspect, creditsUsed: cost, balance },
      });
      return balance;
    });
    return {
      images: generated.map((image, i) => ({
        id: ids[i] as string,
        width: image.width,
        height: image.height,
        createdAt,
        expiresAt,
      })),
      creditsUsed: cost,
      balance,
    };
  } catch (error) {
    await Promise.allSettled(keys.map((key) => deps.store.delete(key)));
    throw error;
  }
}

/** What `GET /api/v1/images/{id}.png` finds: the bytes, or why there are none. */
export type ImageLookup =
  { status: 'ok'; png: Buffer; expiresAt: Date; createdAt: Date } | { status: 'expired'; expiresAt: Date } | { status: 'not_found' };

/**
 * Looks up an image for serving at time `now` (ms since the epoch): `expired` once `now ≥ expires_at` (whether or not
 * the purge job has run yet), `not_found` for unknown ids and for rows whose file is gone.
 */
export async function findImage(db: SqlClient, store: ImageStore, id: string, now: number): Promise<ImageLookup> {
  if (!isImageId(id)) return { status: 'not_found' };
  const { rows } = await db.query<{ file_key: string; created_at: Date | string; expires_at: Date | string; purged_at: unknown }>(
    'SELECT file_key, created_at, expires_at, purged_at FROM generated_images WHERE id = $1',
    [id],
  );
  const row = rows[0];
  if (!row) return { status: 'not_found' };
  const expiresAt = new Date(row.expires_at);
  if (row.purged_at !== null || now >= expiresAt.getTime()) return { status: 'expired', expiresAt };
  const png = await store.get(row.file_key);
  if (!png) return { status: 'not_found' };
  return { status: 'ok', png, expiresAt, createdAt: new Date(row.created_at) };
}

/**
 * Deletes the files of every image whose `expires_at ≤ now` and marks its row purged (`purged_at = now`). Rows stay,
 * so their urls keep answering 410. Processes at most `limit` images per call (default 500), oldest first; returns how
 * many were purged. Safe to run on several servers at once: each row is claimed with `FOR UPDATE SKIP LOCKED`.
 */
export async function purgeExpiredImages(db: Db, store: ImageStore, now: Date, limit = 500): Promise<number> {
  // Not a mutation: storage housekeeping across merchants (rows claimed SKIP LOCKED while their files go), no audit entry.
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; file_key: string }>(
      `SELECT id, file_key FROM generated_images
       WHERE purged_at IS NULL AND expires_at <= $1
       ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now.toISOString(), limit],
    );
    for (const row of rows) {
      await store.delete(row.file_key);
      await tx.query('UPDATE generated_images SET purged_at = $2 WHERE id = $1', [row.id, now.toISOString()]);
    }
    return rows.length;
  });
}

/** A permanent copy of a generated image (`med_<ULID>`), served at `/api/v1/media/<id>.png` without expiry. */
export interface KeptImage {
  id: string;
  width: number;
  height: number;
  sourceImageId: string;
}

/** True when `id` has the shape of a kept image id. */
export function isKeptImageId(id: string): boolean {
  return /^med_[0-9A-HJKMNP-TV-Z]{26}$/.test(id);
}

/**
 * Keeps a permanent copy of generated image `imageId` for `merchantId` (callers who need an image longer than
 * 7 days store copies — the back office does this for catalog pictures). Free of charge. Keeping the same image
 * twice returns the first copy. Returns `null` when the image does not exist or belongs to another merchant, and
 * `'expired'` when it is past its 7 days (there is nothing left to copy).
 */
export async function keepImage(
  deps: Pick<ImageServiceDeps, 'db' | 'feed' | 'store' | 'now'>,
  merchantId: string,
  keptBy: string,
  imageId: string,
): Promise<KeptImage | 'expired' | null> {
  if (!isImageId(imageId)) return null;
  const { rows } = await deps.db.query<{ file_key: string; width: number; height: number; expires_at: Date | string; purged_at: unknown }>(
    'SELECT file_key, width, height, expires_at, purged_at FROM generated_images WHERE id = $1 AND merchant_id = $2',
    [imageId, merchantId],
  );
  const source = rows[0];
  if (!source) return null;
  const existing = await deps.db.query<{ id: string; width: number; height: number }>(
    'SELECT id, width, height FROM kept_images WHERE source_image_id = $1 AND merchant_id = $2 ORDER BY created_at LIMIT 1',
    [imageId, merchantId],
  );
  const found = existing.rows[0];
  if (found) return { id: found.id, width: Number(found.width), height: Number(found.height), sourceImageId: imageId };
  const now = deps.now();
  if (source.purged_at !== null || now >= new Date(source.expires_at).getTime()) return 'expired';
  const png = await deps.store.get(source.file_key);
  if (!png) return 'expired';
  const id = `med_${ulid()}`;
  const key = `${id}.png`;
  await deps.store.put(key, png);
  try {
    await mutation({ db: deps.db, feed: deps.feed, clock: () => new Date(now) }, actorFromString(merchantId, keptBy), async (m) => {
      await m.tx.query(
        `INSERT INTO kept_images (id, merchant_id, file_key, source_image_id, width, height, byte_size, kept_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [id, merchantId, key, imageId, source.width, source.height, png.length, keptBy, new Date(now).toISOString()],
      );
      await m.audit({ registerId: null, action: 'images.kept', entityType: 'kept_image', entityId: id, data: { sourceImageId: imageId } });
    });
  } catch (error) {
    await deps.store.delete(key).catch(() => undefined);
    throw error;
  }
  return { id, width: Number(source.width), height: Number(source.height), sourceImageId: imageId };
}

/** The bytes of a kept image, or `null` when there is none. */
export async function findKeptImage(db: Queryable, store: ImageStore, id: string): Promise<Buffer | null> {
  if (!isKeptImageId(id)) return null;
  const { rows } = await db.query<{ file_key: string }>('SELECT file_key FROM kept_images WHERE id = $1', [id]);
  return rows[0] ? store.get(rows[0].file_key) : null;
}
