/**
 * The OAuth 2.0 authorization server of external integrations:
 * `oidc-provider` mounted under `/oauth` — authorization code grant (RFC 6749 §4.1) with PKCE S256 required for every
 * client (RFC 7636) and refresh tokens (RFC 6749 §6, rotated on use). Not hand-written OAuth: this file only wires
 * the library to our data.
 *
 * - Clients are the listed external apps: `client_id` = `apps.id`, `redirect_uris` = the app's approved exact URIs,
 *   public clients (`token_endpoint_auth_method: none`) — PKCE stands in for a secret.
 * - The "account" is an installation (`sub` = `ins_…`). The authorization request carries the installation and the
 *   one-time connect ticket the install answered (`installation`, `ticket` extra parameters); the interaction
 *   (`GET /oauth/interaction/:uid`) accepts a valid unconsumed ticket of that installation for that client, refuses a
 *   requested scope outside the installation's grant, consumes the ticket and grants exactly the requested scopes.
 *   An existing browser session never skips it (`loadExistingGrant` ignores session grants), so every code needs a
 *   new ticket, i.e. a new install approval by the owner.
 * - Models persist in `oauth_models` (PostgreSQL / PGlite) so instances agree and restarts keep grants. Ids (the
 *   bearer values of codes and tokens) are stored only as SHA-256, `jti` is removed from stored payloads and the
 *   connect ticket inside a stored interaction is replaced by its SHA-256.
 * - Our API accepts the access token (opaque) as the installation's app token: {@link oauthAccessTokenPrincipal}.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDoc } from '../../platform/http/route-doc.ts';
import { exportJWK, generateKeyPair } from 'jose';
import { z } from 'zod';
import type { default as Provider, Adapter, AdapterPayload, Configuration } from 'oidc-provider';
import { loadOidcProvider } from '../../platform/auth/oidc-provider-module.ts';
import { APP_REQUEST_SCOPES } from '../../../../core/index.ts';
import type { Principal } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { consumeConnectTicketHash, liveInstallation } from './service.ts';

/** An OAuth 2.0 error response (RFC 6749 §5.2), as the OAuth endpoints answer their errors. */
const oauthError = z.looseObject({ error: z.string(), error_description: z.string().optional() });

/** Where the authorization server is mounted. */
export const OAUTH_PREFIX = '/oauth';
/** Access tokens: 1 hour. Refresh tokens: 30 days (rotated on each use). Codes: 1 minute. */
export const OAUTH_TTL = {
  AccessToken: 3600,
  AuthorizationCode: 60,
  RefreshToken: 30 * 24 * 3600,
  Grant: 30 * 24 * 3600,
  Interaction: 600,
  Session: 600,
} as const;

const sha256 = (v: string): string => createHash('sha256').update(v).digest('hex');
type Row = Record<string, any>;

/**
 * The client metadata of a listed external app, or undefined: its APPROVED version — redirect URIs and scopes a
 * revision waiting for review has not changed.
 */
async function clientOf(db: Queryable, id: string): Promise<AdapterPayload | undefined> {
  const { rows } = await db.query(
    `SELECT id, approved_redirect_uris AS redirect_uris, approved_scopes FROM apps WHERE id = $1 AND approved_form = 'external' AND listed_at IS NOT NULL AND approved_scopes IS NOT NULL`,
    [id],
  );
  const r = rows[0] as Row | undefined;
  if (!r) return undefined;
  const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
  return {
    client_id: r.id,
    redirect_uris: json<string[]>(r.redirect_uris),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    id_token_signed_response_alg: 'ES256',
    scope: [...json<string[]>(r.approved_scopes), 'offline_access'].join(' '),
  };
}

/** oidc-provider's storage on `oauth_models` (see the module comment); `Client` reads the apps table. */
export function oauthAdapter(db: Db): (name: string) => Adapter {
  return (model: string): Adapter => {
    const find = async (where: string, value: string): Promise<AdapterPayload | undefined> => {
      const { rows } = await db.query(
        `SELECT id, payload, consumed_at FROM oauth_models WHERE model = $1 AND ${where} = $2 AND (expires_at IS NULL OR expires_at > now())`,
        [model, value],
      );
      const r = rows[0] as Row | undefined;
      if (!r) return undefined;
      const payload = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as AdapterPayload & { jtiHash?: string };
      return { ...payload, ...(r.consumed_at ? { consumed: Math.floor(new Date(r.consumed_at).getTime() / 1000) } : {}) };
    };
    return {
      async upsert(id, payload, expiresIn) {
        const stored: Record<string, unknown> = { ...payload };
        delete stored.jti;
        if (model === 'Interaction' && stored.params && typeof (stored.params as Row).ticket === 'string') {
          stored.params = { ...(stored.params as Row), ticket: `sha256:${sha256((stored.params as Row).ticket)}` };
        }
        const accountId = typeof payload.accountId === 'string' && payload.accountId.startsWith('ins_') ? payload.accountId : null;
        await db.query(
          `INSERT INTO oauth_models (model, id, payload, grant_id, uid, installation_id, expires_at)
           VALUES ($1, $2, $3::jsonb, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END)
           ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid, installation_id = EXCLUDED.installation_id, expires_at = EXCLUDED.expires_at`,
          [model, sha256(id), JSON.stringify(stored), payload.grantId ?? null, payload.uid ?? null, accountId, expiresIn ?? null],
        );
      },
      async find(id) {
        if (model === 'Client') return clientOf(db, id);
        const found = await find('id', sha256(id));
        return found ? { ...found, jti: id } : undefined;
      },
      async findByUid(uid) {
        const { rows } = await db.query<{ id: string }>('SELECT id FROM oauth_models WHERE model = $1 AND uid = $2', [model, uid]);
        if (!rows[0]) return undefined;
        // Sessions are looked up by uid; their jti (the cookie value) is not stored, and not needed to save again.
        const found = await find('uid', uid);
        return found ? { ...found, jti: `hashed:${rows[0].id}` } : undefined;
      },
      async findByUserCode() {
        return undefined;
      },
      async consume(id) {
        await db.query('UPDATE oauth_models SET consumed_at = now() WHERE model = $1 AND id = $2 AND consumed_at IS NULL', [model, sha256(id)]);
      },
      async destroy(id) {
        await db.query('DELETE FROM oauth_models WHERE model = $1 AND id = $2', [model, sha256(id)]);
      },
      async revokeByGrantId(grantId) {
        await db.query('DELETE FROM oauth_models WHERE grant_id = $1', [grantId]);
      },
    };
  };
}

/**
 * The authorization server (see the module comment). Its issuer is `<baseUrl>/oauth`; cookies are signed with keys
 * derived from the process's secret box KEK context (same on every instance); its JWKS is a fresh ES256 key per
 * process (it signs nothing we rely on: no `openid` scope is allowed for apps, so no ID tokens).
 */
export async function createAuthorizationServer(ctx: AppContext, cookieKeys: string[]): Promise<Provider> {
  const { default: Provider, errors } = await loadOidcProvider();
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: `oauth-${randomBytes(6).toString('hex')}` };
  const configuration: Configuration = {
    adapter: oauthAdapter(ctx.db),
    clients: [],
    scopes: [...APP_REQUEST_SCOPES, 'offline_access'],
    // Only what this server does is advertised: no `openid` scope (apps get no ID token), no secret-based or JWT
    // client authentication (apps are public clients with PKCE), no pushed authorization requests and no DPoP.
    claims: { sub: null },
    clientAuthMethods: ['none'],
    jwks: { keys: [jwk as never] },
    cookies: { keys: cookieKeys },
    responseTypes: ['code'],
    routes: { authorization: '/authorize', token: '/token', revocation: '/revoke', jwks: '/jwks' },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    pkce: { required: () => true },
    extraParams: ['installation', 'ticket'],
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
    },
    ttl: { ...OAUTH_TTL },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Tokens outlive the short browser session of the connection (which exists only for the interaction).
    expiresWithSession: async () => false,
    loadExistingGrant: async (c) => {
      const grantId = c.oidc.result?.consent?.grantId;
      return grantId ? c.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: async (_c, sub) => ((await liveInstallation(ctx.db, sub)) ? { accountId: sub, claims: () => ({ sub }) } : undefined),
    interactions: { url: (_c, interaction) => `${OAUTH_PREFIX}/interaction/${interaction.uid}` },
    renderError: async (c, out) => {
      c.type = 'application/json; charset=utf-8';
      c.body = out;
    },
  };
  const provider = new Provider(`${ctx.config.baseUrl}${OAUTH_PREFIX}`, configuration);
  provider.proxy = true;
  // oidc-provider drops scopes it does not know; the issue asks to refuse them (400 invalid_scope, before any
  // redirect: the redirect URI is not yet validated at this point).
  const known = new Set<string>([...APP_REQUEST_SCOPES, 'offline_access']);
  provider.use(async (c, next) => {
    if (c.path === '/.well-known/openid-configuration') {
      await next();
      // The library always lists `openid` (from its built-in claims); apps cannot ask for it (refused below).
      const body = c.body as { scopes_supported?: string[] } | undefined;
      if (body?.scopes_supported) body.scopes_supported = body.scopes_supported.filter((s) => known.has(s));
      return;
    }
    if (c.path === '/authorize') {
      const scope = typeof c.query.scope === 'string' ? c.query.scope : '';
      const unknown = scope.split(' ').filter((s) => s && !known.has(s));
      if (unknown.length > 0)
        throw new errors.InvalidScope(
          `scopes outside catalog:read, orders:read, pay:create, webhooks are refused: ${unknown.join(' ')}`,
          unknown[0]!,
        );
    }
    await next();
  });
  return provider;
}

/**
 * Mounts `provider` under `/oauth` (its raw Node handler; the request body is left unread for it) and the
 * interaction that checks the connect ticket (see the module comment).
 */
export function registerOAuthRoutes(app: FastifyInstance, ctx: AppContext, provider: Provider): void {
  const callback = provider.callback();
  void app.register(async (scope) => {
    // Leave every body unread: oidc-provider parses its own (application/x-www-form-urlencoded, JSON).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const doc = (
      summary: string,
      description: string,
      produces = ['application/json'],
      errors: Record<number, string> = {
        400: 'An OAuth 2.0 error (`invalid_request`, `invalid_client`, `invalid_grant`, `invalid_scope`, …; RFC 6749 §5.2)',
      },
    ): { config: { openapi: RouteDoc } } => ({
      config: {
        openapi: { summary, description, tags: ['oauth'], produces, errors, errorBody: { mediaType: 'application/json', schema: oauthError } },
      },
    });

    scope.get(
      `${OAUTH_PREFIX}/interaction/:uid`,
      doc(
        'The connection check of an authorization',
        'Checks the connect ticket and the requested scopes against the installation, then redirects back to the authorization.',
        ['text/html'],
      ),
      async (request, reply) => {
        reply.hijack();
        const req = request.raw;
        const res = reply.raw;
        try {
          await finishInteraction(ctx, provider, req, res);
        } catch (err) {
          if (!res.headersSent) {
            res.statusCode = 400;
            res.setHeader('content-type', 'application/json; charset=utf-8');
            res.end(JSON.stringify({ error: 'invalid_request', error_description: (err as Error).message }));
          }
        }
      },
    );

    // The library's endpoints, one route each (nothing else under /oauth is served).
    const pass = (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      const req = request.raw as IncomingMessage & { originalUrl?: string };
      req.originalUrl = req.url;
      req.url = req.url!.slice(OAUTH_PREFIX.length) || '/';
      // The library builds its addresses (issuer, endpoints) from the request's host: they come from BASE_URL, never
      // from what the client sends as Host or X-Forwarded-Host.
      req.headers.host = base.host;
      req.headers['x-forwarded-host'] = base.host;
      req.headers['x-forwarded-proto'] = base.protocol.slice(0, -1);
      void callback(req, reply.raw);
    };
    const base = new URL(ctx.config.baseUrl);
    scope.get(
      `${OAUTH_PREFIX}/.well-known/openid-configuration`,
      doc(
        'OAuth 2.0 authorization server metadata',
        'Discovery document of the authorization server of external integrations (issuer `<BASE_URL>/oauth`); the same document as `/.well-known/oauth-authorization-server/oauth`.',
        ['application/json'],
        {},
      ),
      pass,
    );
    // RFC 8414 §3: the metadata of issuer `<BASE_URL>/oauth` lives at `/.well-known/oauth-authorization-server/oauth`.
    scope.get(
      `/.well-known/oauth-authorization-server${OAUTH_PREFIX}`,
      doc(
        'OAuth 2.0 authorization server metadata (RFC 8414)',
        'Metadata of the authorization server of external integrations (issuer `<BASE_URL>/oauth`), at the address RFC 8414 §3 derives from the issuer.',
        ['application/json'],
        {},
      ),
      (request, reply) => {
        request.raw.url = `${OAUTH_PREFIX}/.well-known/openid-configuration`;
        pass(request, reply);
      },
    );
    const jwks = doc(
      "The authorization server's public keys",
      'JWKS (the server issues no ID tokens to apps; listed for discovery).',
      ['application/jwk-set+json'],
      {},
    );
    jwks.config.openapi.response = z.object({ keys: z.array(z.looseObject({ kty: z.string() })) });
    scope.get(`${OAUTH_PREFIX}/jwks`, jwks, pass);
    scope.get(
      `${OAUTH_PREFIX}/authorize`,
      doc(
        'Authorization endpoint (RFC 6749 §4.1.1, PKCE S256 required)',
        "`client_id` (the app id), `redirect_uri` (exactly as registered), `response_type=code`, `code_challenge`, `code_challenge_method=S256`, `scope` (granted scopes), `state`, `installation` and `ticket` from the install's `connectUrl`. Redirects to the interaction, then back to `redirect_uri` with `code` or `error`.",
        ['text/html'],
      ),
      pass,
    );
    scope.get(
      `${OAUTH_PREFIX}/authorize/:uid`,
      doc('Resume an authorization after its interaction', 'Internal step of the redirect chain.', ['text/html']),
      pass,
    );
    scope.post(
      `${OAUTH_PREFIX}/token`,
      doc(
        'Token endpoint (RFC 6749 §4.1.3, §6)',
        'Form body: `grant_type=authorization_code` with `code`, `redirect_uri`, `client_id`, `code_verifier`; or `grant_type=refresh_token` with `refresh_token`, `client_id`. Answers `{ access_token, refresh_token, expires_in, scope, token_type }`; errors per RFC 6749 §5.2.',
      ),
      pass,
    );
    scope.post(`${OAUTH_PREFIX}/revoke`, doc('Token revocation (RFC 7009)', 'Form body: `token`, `client_id`.'), pass);
  });
}

async function finishInteraction(ctx: AppContext, provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const params = details.params as Record<string, unknown>;
  const clientId = String(params.client_id ?? '');
  const requested = String(params.scope ?? '')
    .split(' ')
    .filter(Boolean);
  const deny = (error: string, description: string) =>
    provider.interactionFinished(req, res, { error, error_description: description }, { mergeWithLastSubmission: false });
  const installationId = typeof params.installation === 'string' ? params.installation : '';
  const ticket = typeof params.ticket === 'string' && params.ticket.startsWith('sha256:') ? params.ticket.slice(7) : '';
  if (!installationId || !ticket)
    return deny('access_denied', 'installation and ticket are required: start from the connect URL the install answered');
  const installation = await liveInstallation(ctx.db, installationId);
  if (!installation || installation.appId !== clientId) return deny('access_denied', 'the installation is unknown, not installed, or of another app');
  const outside = requested.filter((s) => s !== 'offline_access' && !installation.grantedScopes.includes(s as never));
  if (outside.length > 0) return deny('invalid_scope', `scopes not granted by the merchant: ${outside.join(' ')}`);
  const scopes = requested.filter((s) => s !== 'offline_access');
  if (scopes.length === 0) return deny('invalid_scope', `request at least one of the granted scopes: ${installation.grantedScopes.join(' ')}`);
  const consumed = await consumeConnectTicketHash(ctx.db, { installationId, appId: clientId, ticketHash: ticket, now: ctx.clock() });
  if (!consumed) return deny('access_denied', 'the connect ticket is unknown, used or expired; install again from the register');
  const grant = new provider.Grant({ accountId: installationId, clientId });
  grant.addOIDCScope(scopes.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId: installationId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

/**
 * Our API's view of an OAuth access token: the installation's app principal (`appId` = `ins_…`) with the token's
 * scopes that the installation still grants — or null when the token is unknown, expired, or its installation is
 * not installed (checked on every request: one indexed lookup).
 */
export async function oauthAccessTokenPrincipal(db: Queryable, token: string, now: Date): Promise<Principal | null> {
  const { rows } = await db.query(
    `SELECT o.payload, o.expires_at, i.id AS installation_id, i.merchant_id,
            CASE WHEN s.status = 'suspended' THEN 'suspended' ELSE i.status END AS status, i.granted_scopes, i.app_id, a.name AS app_name
       FROM oauth_models o JOIN app_installations i ON i.id = o.installation_id JOIN apps a ON a.id = i.app_id
       LEFT JOIN app_subscriptions s ON s.installation_id = i.id
      WHERE o.model = 'AccessToken' AND o.id = $1`,
    [sha256(token)],
  );
  const r = rows[0] as Row | undefined;
  if (!r || r.status !== 'installed') return null;
  if (r.expires_at && new Date(r.expires_at).getTime() <= now.getTime()) return null;
  const payload = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as { clientId?: string; scope?: string; exp?: number };
  if (payload.clientId !== r.app_id) return null;
  if (payload.exp && payload.exp * 1000 <= now.getTime()) return null;
  const granted = new Set<string>(r.granted_scopes);
  const scopes = String(payload.scope ?? '')
    .split(' ')
    .filter((s) => granted.has(s));
  return { kind: 'app', merchantId: r.merchant_id, appId: r.installation_id, appName: r.app_name, scopes };
}
