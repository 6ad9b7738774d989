import { createHash, createHmac } from 'node:crypto';
import { assertImageKey, type ImageStore } from './store.ts';

/**
 * An {@link ImageStore} in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2, …), speaking the plain object API —
 * `PUT`, `GET` and `DELETE /{bucket}/{prefix}{key}` — signed with AWS Signature Version 4 (header auth, signed
 * payload). No SDK: the three calls and the signer are small, and the signer is checked against AWS's published
 * example. Images are still served through our own url (so the 7-day 410 holds); the bucket need not be public.
 */

/** Inputs of one SigV4 signature. `headers` must include every header to sign (names in any case). */
export interface SigV4Request {
  method: string;
  url: URL;
  headers: Record<string, string>;
  /** Hex SHA-256 of the body (`x-amz-content-sha256`). */
  payloadHash: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
  /** `YYYYMMDD'T'HHMMSS'Z'` — must equal the `x-amz-date` header. */
  amzDate: string;
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** RFC 3986 encoding as SigV4 wants it (`encodeURIComponent` plus `!'()*`). */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The `Authorization` header value for a request (AWS Signature Version 4: canonical request → string to sign →
 * HMAC chain of date, region, service, `aws4_request`). Pure.
 */
export function signV4(request: SigV4Request): string {
  const headerEntries = Object.entries(request.headers)
    .map(([name, value]) => [name.toLowerCase(), value.trim().replace(/\s+/g, ' ')] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const signedHeaders = headerEntries.map(([name]) => name).join(';');
  const canonicalPath = request.url.pathname
    .split('/')
    .map((segment) => uriEncode(decodeURIComponent(segment)))
    .join('/');
  const canonicalQuery = [...request.url.searchParams.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalPath,
    canonicalQuery,
    headerEntries.map(([name, value]) => `${name}:${value}\n`).join(''),
    signedHeaders,
    request.payloadHash,
  ].join('\n');
  const day = request.amzDate.slice(0, 8);
  const scope = `${day}/${request.region}/${request.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', request.amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${request.secretAccessKey}`, day), request.region), request.service), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${request.accessKeyId}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`;
}

/** Where and how to reach the bucket; from `IMAGE_S3_*` environment variables (docs/images.md). */
export interface S3StoreOptions {
  /** Endpoint base URL, e.g. `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:9000`. */
  endpoint: string;
  bucket: string;
  /** Default `us-east-1` (what MinIO expects by default). */
  region?: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Key prefix inside the bucket; default `images/`. */
  prefix?: string;
  /** Per-request timeout in ms; default 30 000. */
  timeoutMs?: number;
  /** Injected for tests. */
  fetch?: typeof fetch;
  /** Injected clock for the signature date. */
  now?: () => Date;
}

/** An S3 call failed (network, timeout, or a status other than the expected ones). */
export class S3StoreError extends Error {
  override readonly name = 'S3StoreError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Images as objects `{prefix}{key}` in one bucket, path-style URLs (`{endpoint}/{bucket}/{object}`). */
export class S3ImageStore implements ImageStore {
  readonly name = 's3';
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: S3StoreOptions) {
    this.fetchImpl = options.fetch ?? fetch;
  }

  private async call(method: 'PUT' | 'GET' | 'DELETE', key: string, body?: Buffer): Promise<Response> {
    assertImageKey(key);
    const base = this.options.endpoint.replace(/\/+$/, '');
    const url = new URL(
      `${base}/${uriEncode(this.options.bucket)}/${(this.options.prefix ?? 'images/').split('/').map(uriEncode).join('/')}${uriEncode(key)}`,
    );
    const amzDate = (this.options.now?.() ?? new Date())
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const payloadHash = sha256Hex(body ?? '');
    const headers: Record<string, string> = {
      host: url.host,
      'x-amz-date': amzDate,
      'x-amz-content-sha256': payloadHash,
      ...(body ? { 'content-type': 'image/png', 'content-length': String(body.length) } : {}),
    };
    const authorization = signV4({
      method,
      url,
      headers,
      payloadHash,
      accessKeyId: this.options.accessKeyId,
      secretAccessKey: this.options.secretAccessKey,
      region: this.options.region ?? 'us-east-1',
      service: 's3',
      amzDate,
    });
    const { host: _host, 'content-length': _length, ...sent } = headers;
    try {
      return await this.fetchImpl(url, {
        method,
        headers: { ...sent, authorization },
        ...(body ? { body: new Uint8Array(body) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new S3StoreError(`S3 ${method} ${key} failed: ${(error as Error).message}`);
    }
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const res = await this.call('PUT', key, bytes);
    if (!res.ok) throw new S3StoreError(`S3 PUT ${key} answered ${res.status}: ${(await res.text()).slice(0, 300)}`, res.status);
    await res.arrayBuffer().catch(() => undefined);
  }

  async get(key: string): Promise<Buffer | null> {
    const res = await this.call('GET', key);
    if (res.status === 404) {
      await res.arrayBuffer().catch(() => undefined);
      return null;
    }
    if (!res.ok) throw new S3StoreError(`S3 GET ${key} answered ${res.status}`, res.status);
    return Buffer.from(await res.arrayBuffer());
  }

  async delete(key: string): Promise<void> {
    const res = await this.call('DELETE', key);
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok && res.status !== 404) throw new S3StoreError(`S3 DELETE ${key} answered ${res.status}`, res.status);
  }
}

/** Environment read by {@link createImageStoreFromEnv}. */
export interface ImageStoreEnv {
  DATA_DIR?: string | undefined;
  IMAGE_S3_ENDPOINT?: string | undefined;
  IMAGE_S3_BUCKET?: string | undefined;
  IMAGE_S3_REGION?: string | undefined;
  IMAGE_S3_ACCESS_KEY_ID?: string | undefined;
  IMAGE_S3_SECRET_ACCESS_KEY?: string | undefined;
  IMAGE_S3_PREFIX?: string | undefined;
}

/**
 * S3 options when `IMAGE_S3_BUCKET` is set (with `IMAGE_S3_ENDPOINT`, `IMAGE_S3_ACCESS_KEY_ID`,
 * `IMAGE_S3_SECRET_ACCESS_KEY`, optional `IMAGE_S3_REGION` and `IMAGE_S3_PREFIX`), else `null`.
 * @throws Error when the bucket is set but the endpoint or a key is missing.
 */
export function s3OptionsFromEnv(env: ImageStoreEnv): S3StoreOptions | null {
  if (!env.IMAGE_S3_BUCKET) return null;
  const missing = (['IMAGE_S3_ENDPOINT', 'IMAGE_S3_ACCESS_KEY_ID', 'IMAGE_S3_SECRET_ACCESS_KEY'] as const).filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`IMAGE_S3_BUCKET is set but ${missing.join(', ')} is missing`);
  return {
    endpoint: env.IMAGE_S3_ENDPOINT!,
    bucket: env.IMAGE_S3_BUCKET,
    accessKeyId: env.IMAGE_S3_ACCESS_KEY_ID!,
    secretAccessKey: env.IMAGE_S3_SECRET_ACCESS_KEY!,
    ...(env.IMAGE_S3_REGION ? { region: env.IMAGE_S3_REGION } : {}),
    ...(env.IMAGE_S3_PREFIX !== undefined ? { prefix: env.IMAGE_S3_PREFIX } : {}),
  };
}
