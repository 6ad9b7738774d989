import type { Queryable } from './db/db.ts';
import { redactValuesInLog } from './http/log.ts';
import { secretBox, SecretBoxError, type SecretBox } from './secrets.ts';

/**
 * The deployment's messaging credentials — the mail server's `SMTP_URL` (its password in the URL), the DKIM private
 * key and the SMS provider's tokens — kept in the database only sealed with the key-encryption key
 * (platform/secrets.ts, AAD `deployment_secrets:<name>`), so a dump of the database sends no mail and no text
 * (docs/decisions/0093-deployment-secrets-sealed.md).
 *
 * This file is the one writer of `deployment_secrets` and of its trail `deployment_secret_events` (who set or unset
 * which name, when — never the value). Each change is one statement (the row and its event together), so it needs no
 * transaction; the table has no merchant, so the trail is its own rather than a merchant's audit chain. Operators
 * write through `npm run platform-admin -- secrets set|unset|list` (platform-admin.ts); the server opens the secrets
 * at start and overlays them on its environment ({@link deploymentEnvironment}, main.ts).
 */

/**
 * Names a sealed secret may have — the environment variables the messaging configuration reads, credentials only:
 * `SMTP_URL`, `DKIM_PRIVATE_KEY` (PEM), and any `SMS_…` variable ending in `_SID`, `_TOKEN`, `_KEY` or `_SECRET`
 * (`SMS_ACCOUNT_SID`, `SMS_AUTH_TOKEN`; a provider's `SMS_API_KEY`, `SMS_API_SECRET`, `SMS_SIGNATURE_SECRET`). Settings
 * that are not secret (`SMTP_FROM`, `SMS_PROVIDER`, `SMS_FROM`, `DKIM_SELECTOR`, …) stay in the environment.
 */
export const DEPLOYMENT_SECRET_NAME = /^(?:SMTP_URL|DKIM_PRIVATE_KEY|SMS_[A-Z0-9_]+_(?:SID|TOKEN|KEY|SECRET))$/;

/** Longest value accepted, in bytes of UTF-8 (a 4096-bit RSA key in PEM is about 3.3 kB). */
export const DEPLOYMENT_SECRET_MAX_BYTES = 16 * 1024;

/** A deployment secret that cannot be used: a name not allowed, an empty or oversized value, or one that does not open. */
export class DeploymentSecretError extends Error {
  override name = 'DeploymentSecretError';
}

/** The sealing context (AAD) of the secret `name`. */
function context(name: string): string {
  return `deployment_secrets:${name}`;
}

/** @throws DeploymentSecretError unless `name` matches {@link DEPLOYMENT_SECRET_NAME}. */
export function assertDeploymentSecretName(name: string): void {
  if (!DEPLOYMENT_SECRET_NAME.test(name)) {
    throw new DeploymentSecretError(
      `"${name}" is not a deployment secret: allowed are SMTP_URL, DKIM_PRIVATE_KEY and SMS_…_SID, SMS_…_TOKEN, SMS_…_KEY, SMS_…_SECRET (e.g. SMS_AUTH_TOKEN); other settings stay in the environment`,
    );
  }
}

/**
 * Seals `value` for `name` and stores it (a new row, or the new value of an existing one, `updated_at` = `now`), with
 * a `set` event by `actor` (e.g. `operator:alice`) in the same statement.
 * @throws DeploymentSecretError for a name not allowed, or a value that is empty or over {@link DEPLOYMENT_SECRET_MAX_BYTES}.
 */
export async function setDeploymentSecret(
  db: Queryable,
  input: { name: string; value: string; actor: string },
  box: SecretBox = secretBox(),
  now: Date = new Date(),
): Promise<void> {
  assertDeploymentSecretName(input.name);
  if (input.value.trim() === '') throw new DeploymentSecretError(`the value of ${input.name} is empty`);
  if (Buffer.byteLength(input.value, 'utf8') > DEPLOYMENT_SECRET_MAX_BYTES)
    throw new DeploymentSecretError(`the value of ${input.name} is longer than ${DEPLOYMENT_SECRET_MAX_BYTES} bytes`);
  await db.query(
    `WITH saved AS (
       INSERT INTO deployment_secrets (name, value_sealed, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET value_sealed = EXCLUDED.value_sealed, updated_at = EXCLUDED.updated_at
       RETURNING name
     )
     INSERT INTO deployment_secret_events (name, action, actor, occurred_at) SELECT name, 'set', $4, $3 FROM saved`,
    [input.name, box.seal(input.value, context(input.name)), now, input.actor],
  );
}

/**
 * Removes the secret `name`, with an `unset` event by `actor`, in one statement. Returns false (and records nothing)
 * when there was none. @throws DeploymentSecretError for a name not allowed.
 */
export async function unsetDeploymentSecret(db: Queryable, input: { name: string; actor: string }, now: Date = new Date()): Promise<boolean> {
  assertDeploymentSecretName(input.name);
  const { rows } = await db.query(
    `WITH removed AS (DELETE FROM deployment_secrets WHERE name = $1 RETURNING name)
     INSERT INTO deployment_secret_events (name, action, actor, occurred_at) SELECT name, 'unset', $2, $3 FROM removed RETURNING seq`,
    [input.name, input.actor, now],
  );
  return rows.length > 0;
}

/**
 * The stored secrets' names and last changes, by name — never a value. With `box`, whether each opens with that KEK
 * (`opens`), so an operator sees a key mismatch before the server's start does.
 */
export async function listDeploymentSecrets(db: Queryable, box?: SecretBox): Promise<{ name: string; updatedAt: Date; opens?: boolean }[]> {
  const { rows } = await db.query<{ name: string; value_sealed: string; updated_at: Date }>(
    'SELECT name, value_sealed, updated_at FROM deployment_secrets ORDER BY name',
  );
  return rows.map((row) => {
    const entry = { name: row.name, updatedAt: new Date(row.updated_at) };
    if (!box) return entry;
    try {
      box.open(row.value_sealed, context(row.name));
      return { ...entry, opens: true };
    } catch {
      return { ...entry, opens: false };
    }
  });
}

/**
 * Every stored secret opened: name → value.
 * @throws DeploymentSecretError naming the first secret that does not open with `box` (another KEK, or edited bytes).
 */
export async function openDeploymentSecrets(db: Queryable, box: SecretBox = secretBox()): Promise<Map<string, string>> {
  const { rows } = await db.query<{ name: string; value_sealed: string }>('SELECT name, value_sealed FROM deployment_secrets ORDER BY name');
  const opened = new Map<string, string>();
  for (const row of rows) {
    try {
      opened.set(row.name, box.open(row.value_sealed, context(row.name)));
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      throw new DeploymentSecretError(
        `the sealed deployment secret ${row.name} does not open with this key-encryption key (REGISTER_KEK / DATA_DIR/kek.key): ` +
          `start with the key it was sealed with, or set it again (npm run platform-admin -- secrets set ${row.name})`,
      );
    }
  }
  return opened;
}

/** Whether the environment's value of `name` is a credential given in clear (an SMTP_URL only when it has a password). */
function isClearCredential(name: string, value: string | undefined): boolean {
  if (!value?.trim() || !DEPLOYMENT_SECRET_NAME.test(name)) return false;
  if (name !== 'SMTP_URL') return true;
  try {
    return new URL(value.trim()).password !== '';
  } catch {
    return false;
  }
}

/**
 * The environment the messaging configuration reads (`smtpConfigFromEnv`, `twilioConfigFromEnv`, …): `env` overlaid
 * with the opened deployment secrets — a sealed secret wins over the same variable in `env`, so a credential rotated
 * with `platform-admin secrets set` takes effect even where an old value lingers in the environment. Also:
 * - `sealed`: the names taken from the database;
 * - `warnings`: one line per credential given in the clear environment (names only, never a value) — ignored when a
 *   sealed one exists, used but discouraged otherwise (the shipped path is sealed);
 * - every credential (sealed or from `env`), and an SMTP_URL's password, is registered with the log's redaction
 *   (platform/http/log.ts `redactValuesInLog`).
 * @throws DeploymentSecretError naming the secret that does not open with `box`.
 */
export async function deploymentEnvironment(
  db: Queryable,
  env: Record<string, string | undefined>,
  box: SecretBox = secretBox(),
): Promise<{ env: Record<string, string | undefined>; sealed: string[]; warnings: string[] }> {
  const opened = await openDeploymentSecrets(db, box);
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!isClearCredential(name, value)) continue;
    warnings.push(
      opened.has(name)
        ? `${name} is set in the environment and ignored: the sealed ${name} is used; remove it from the environment`
        : `${name} is a credential in the clear environment: seal it instead (npm run platform-admin -- secrets set ${name}) and remove it from the environment`,
    );
  }
  if (opened.has('DKIM_PRIVATE_KEY') && env.DKIM_PRIVATE_KEY_FILE?.trim())
    warnings.push('DKIM_PRIVATE_KEY_FILE is ignored: the sealed DKIM_PRIVATE_KEY is used');
  const merged: Record<string, string | undefined> = { ...env, ...Object.fromEntries(opened) };
  const credentials = Object.entries(merged)
    .filter(([name, value]) => DEPLOYMENT_SECRET_NAME.test(name) && value?.trim())
    .map(([, value]) => value!.trim());
  const passwords = credentials.flatMap((value) => {
    try {
      const password = new URL(value).password;
      return password ? [password, decodeURIComponent(password)] : [];
    } catch {
      return [];
    }
  });
  redactValuesInLog([...credentials, ...passwords]);
  return { env: merged, sealed: [...opened.keys()], warnings };
}
