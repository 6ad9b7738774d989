import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ImageStore, S3StoreError, s3OptionsFromEnv, signV4 } from '../../sync-server/src/modules/images/s3.ts';
import { createImageStoreFromEnv } from '../../sync-server/src/modules/images/routes.ts';

const ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

describe('signV4', () => {
  it("matches AWS's published example (GET /test.txt with a Range header)", () => {
    const authorization = signV4({
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: {
        Host: 'examplebucket.s3.amazonaws.com',
        Range: 'bytes=0-9',
        'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        'x-amz-date': '20130524T000000Z',
      },
      payloadHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET,
      region: 'us-east-1',
      service: 's3',
      amzDate: '20130524T000000Z',
    });
    expect(authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });
});

/** A minimal S3-compatible server: path-style objects in memory, every request's SigV4 signature checked. */
describe('S3ImageStore against a local S3-compatible server', () => {
  let server: Server;
  let endpoint: string;
  const objects = new Map<string, Buffer>();
  const seen: Array<{ method: string; path: string }> = [];
  let failWith: number | null = null;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        seen.push({ method: req.method ?? '', path });
        if (failWith) {
          res.statusCode = failWith;
          return res.end('<Error><Code>AccessDenied</Code></Error>');
        }
        // Verify the signature the way S3 does: recompute it from what arrived.
        const auth = req.headers.authorization ?? '';
        const signed = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(';') ?? [];
        const payloadHash = String(req.headers['x-amz-content-sha256']);
        const expected = signV4({
          method: req.method ?? 'GET',
          url: new URL(req.url ?? '/', `http://${req.headers.host}`),
          headers: Object.fromEntries(signed.map((name) => [name, String(req.headers[name])])),
          payloadHash,
          accessKeyId: ACCESS_KEY,
          secretAccessKey: SECRET,
          region: 'us-east-1',
          service: 's3',
          amzDate: String(req.headers['x-amz-date']),
        });
        const bodyHash = createHash('sha256').update(body).digest('hex');
        if (auth !== expected || payloadHash !== bodyHash || !signed.includes('host')) {
          res.statusCode = 403;
          return res.end('<Error><Code>SignatureDoesNotMatch</Code></Error>');
        }
        if (req.method === 'PUT') {
          objects.set(path, body);
          return res.end();
        }
        if (req.method === 'GET') {
          const object = objects.get(path);
          res.statusCode = object ? 200 : 404;
          return res.end(object ?? '<Error><Code>NoSuchKey</Code></Error>');
        }
        if (req.method === 'DELETE') {
          objects.delete(path);
          res.statusCode = 204;
          return res.end();
        }
        res.statusCode = 405;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('puts, gets and deletes path-style objects with valid signatures', async () => {
    const store = new S3ImageStore({ endpoint, bucket: 'register-images', accessKeyId: ACCESS_KEY, secretAccessKey: SECRET });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    await store.put('img_01ARZ3NDEKTSV4RRFFQ69G5FAV.png', png);
    expect(objects.get('/register-images/images/img_01ARZ3NDEKTSV4RRFFQ69G5FAV.png')).toEqual(png);
    expect(await store.get('img_01ARZ3NDEKTSV4RRFFQ69G5FAV.png')).toEqual(png);
    await store.delete('img_01ARZ3NDEKTSV4RRFFQ69G5FAV.png');
    expect(await store.get('img_01ARZ3NDEKTSV4RRFFQ69G5FAV.png')).toBeNull();
    await store.delete('img_01ARZ3NDEKTSV4RRFFQ69G5FAV.png'); // missing is fine
    expect(seen.map((s) => s.method)).toEqual(['PUT', 'GET', 'DELETE', 'GET', 'DELETE']);
  });

  it('reports refusals as S3StoreError and refuses unsafe keys', async () => {
    const wrongSecret = new S3ImageStore({ endpoint, bucket: 'b', accessKeyId: ACCESS_KEY, secretAccessKey: 'wrong' });
    await expect(wrongSecret.put('img_1.png', Buffer.from('x'))).rejects.toBeInstanceOf(S3StoreError);
    failWith = 500;
    const store = new S3ImageStore({ endpoint, bucket: 'b', accessKeyId: ACCESS_KEY, secretAccessKey: SECRET });
    await expect(store.get('img_1.png')).rejects.toBeInstanceOf(S3StoreError);
    failWith = null;
    await expect(store.put('../escape.png', Buffer.from('x'))).rejects.toThrow(TypeError);
    const unreachable = new S3ImageStore({ endpoint: 'http://127.0.0.1:9', bucket: 'b', accessKeyId: ACCESS_KEY, secretAccessKey: SECRET });
    await expect(unreachable.get('img_1.png')).rejects.toBeInstanceOf(S3StoreError);
  });

  it('is chosen from the environment when IMAGE_S3_BUCKET is set', () => {
    expect(createImageStoreFromEnv({ DATA_DIR: '/tmp/x' }).name).toBe('fs');
    const env = { IMAGE_S3_BUCKET: 'b', IMAGE_S3_ENDPOINT: endpoint, IMAGE_S3_ACCESS_KEY_ID: 'k', IMAGE_S3_SECRET_ACCESS_KEY: 's' };
    expect(createImageStoreFromEnv(env).name).toBe('s3');
    expect(s3OptionsFromEnv({ ...env, IMAGE_S3_REGION: 'eu-central-1', IMAGE_S3_PREFIX: 'pos/' })).toMatchObject({
      region: 'eu-central-1',
      prefix: 'pos/',
    });
    expect(() => s3OptionsFromEnv({ IMAGE_S3_BUCKET: 'b' })).toThrow(/IMAGE_S3_ENDPOINT/);
  });
});
