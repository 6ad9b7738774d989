/**
 * The message bridge between the register and an in-platform app's sandboxed frame
 * (renderer/src/apps/app-bridge.ts). What the app may ask (only `register-api` GET/POST under /api/pos/, no `..`, plain
 * JSON bodies), whose messages count (only the frame's window, only with a sandboxed document's opaque origin), and
 * that the call carries the app's token, never anything else.
 */
import { describe, expect, it } from 'vitest';
import { safeLaunchUrl } from '../../renderer/src/apps/apps-api.ts';
import {
  bridgePathProblem,
  createAppBridge,
  MAX_BRIDGE_BODY_CHARS,
  MAX_BRIDGE_IN_FLIGHT,
  parseBridgeRequest,
  type BridgeTarget,
} from '../../renderer/src/apps/app-bridge.ts';

describe('parseBridgeRequest', () => {
  it('accepts GET and POST under /api/pos/ with a string or integer id', () => {
    expect(parseBridgeRequest({ type: 'register-api', id: 'a1', method: 'GET', path: '/api/pos/catalog?limit=5' })).toEqual({
      type: 'register-api',
      id: 'a1',
      method: 'GET',
      path: '/api/pos/catalog?limit=5',
    });
    expect(
      parseBridgeRequest({
        type: 'register-api',
        id: 7,
        method: 'POST',
        path: '/api/pos/orders',
        body: { lines: [{ variationId: 'var_1', quantity: 2 }] },
      }),
    ).toEqual({
      type: 'register-api',
      id: 7,
      method: 'POST',
      path: '/api/pos/orders',
      body: { lines: [{ variationId: 'var_1', quantity: 2 }] },
    });
  });

  it.each([
    ['not an object', 'register-api'],
    ['null', null],
    ['an array', [{ type: 'register-api' }]],
    ['another type', { type: 'register-api-result', id: 1, method: 'GET', path: '/api/pos/catalog' }],
    ['no type', { id: 1, method: 'GET', path: '/api/pos/catalog' }],
    ['an extra key (a token)', { type: 'register-api', id: 1, method: 'GET', path: '/api/pos/catalog', token: 'rpa_x' }],
    ['headers', { type: 'register-api', id: 1, method: 'GET', path: '/api/pos/catalog', headers: { authorization: 'Bearer x' } }],
    ['no id', { type: 'register-api', method: 'GET', path: '/api/pos/catalog' }],
    ['an empty id', { type: 'register-api', id: '', method: 'GET', path: '/api/pos/catalog' }],
    ['a fractional id', { type: 'register-api', id: 1.5, method: 'GET', path: '/api/pos/catalog' }],
    ['an object id', { type: 'register-api', id: {}, method: 'GET', path: '/api/pos/catalog' }],
    ['DELETE', { type: 'register-api', id: 1, method: 'DELETE', path: '/api/pos/app-installations/ins_1' }],
    ['PATCH', { type: 'register-api', id: 1, method: 'PATCH', path: '/api/pos/catalog/items/itm_1' }],
    ['lower-case get', { type: 'register-api', id: 1, method: 'get', path: '/api/pos/catalog' }],
    ['a GET with a body', { type: 'register-api', id: 1, method: 'GET', path: '/api/pos/catalog', body: { a: 1 } }],
    ['a body that is not plain JSON (Date)', { type: 'register-api', id: 1, method: 'POST', path: '/api/pos/orders', body: { at: new Date() } }],
    ['a body with NaN', { type: 'register-api', id: 1, method: 'POST', path: '/api/pos/orders', body: { n: Number.NaN } }],
    ['a body too large', { type: 'register-api', id: 1, method: 'POST', path: '/api/pos/orders', body: { memo: 'x'.repeat(MAX_BRIDGE_BODY_CHARS) } }],
  ])('ignores %s', (_label, data) => {
    expect(parseBridgeRequest(data)).toBeNull();
  });
});

describe('bridgePathProblem', () => {
  it.each(['/api/pos/catalog', '/api/pos/catalog/items/itm_1', '/api/pos/catalog?q=latte&limit=5', '/api/pos/orders?cursor=abc%3D'])(
    'allows %s',
    (path) => {
      expect(bridgePathProblem(path)).toBeNull();
    },
  );

  it.each([
    ['/api/staff/me', 'outside /api/pos/'],
    ['/api/pos', 'the prefix without its slash'],
    ['/api/sync/orders/push', 'the sync API'],
    ['/api/platform/apps', 'the review API'],
    ['https://evil.example/api/pos/catalog', 'an absolute URL'],
    ['//evil.example/api/pos/catalog', 'a scheme-relative URL'],
    ['/api/pos/../staff/me', 'dot-dot'],
    ['/api/pos/..', 'a trailing dot-dot'],
    ['/api/pos/%2e%2e/staff', 'encoded dot-dot'],
    ['/api/pos/%2E./staff', 'half-encoded dot-dot'],
    ['/api/pos/catalog%2f..%2fstaff', 'an encoded slash'],
    ['/api/pos/..\\staff', 'a backslash'],
    ['/api/pos//catalog', 'an empty segment'],
    ['/api/pos/catalog#x', 'a fragment'],
    ['/api/pos/cat alog', 'a space'],
    ['/api/pos/catalog\n', 'a new line'],
    ['/api/pos/' + 'a'.repeat(3000), 'a path too long'],
    [42, 'a number'],
  ] as [unknown, string][])('refuses %s (%s)', (path) => {
    expect(bridgePathProblem(path)).not.toBeNull();
  });
});

/** A fake frame window that records what the register posted to it. */
function fakeFrame(): BridgeTarget & { received: { message: unknown; targetOrigin: string }[] } {
  const received: { message: unknown; targetOrigin: string }[] = [];
  return { received, postMessage: (message, targetOrigin) => received.push({ message, targetOrigin }) };
}

/** A fetch that records its calls and answers `status` with a JSON body. */
function fakeFetch(status = 200, body: unknown = { data: [] }) {
  const calls: { url: string; init: RequestInit }[] = [];
  let release: (() => void) | undefined;
  const fn = async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    if (hold) await new Promise<void>((r) => (release = r));
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  let hold = false;
  return {
    calls,
    fn: fn as typeof fetch,
    holdAll: () => (hold = true),
    releaseAll: () => {
      hold = false;
      release?.();
    },
  };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('createAppBridge', () => {
  const request = { type: 'register-api', id: 'r1', method: 'GET', path: '/api/pos/catalog?limit=3' };

  it('performs a request of the frame with the app token and answers the frame only', async () => {
    const frame = fakeFrame();
    const http = fakeFetch(200, { data: [{ id: 'itm_1' }] });
    const calls: unknown[] = [];
    const handle = createAppBridge({ frame: () => frame, appToken: async () => 'rpa_app', fetch: http.fn, onCall: (c) => calls.push(c) });
    handle({ source: frame as unknown as Window, origin: 'null', data: request });
    await flush();
    await flush();
    expect(http.calls).toHaveLength(1);
    expect(http.calls[0]!.url).toBe('/api/pos/catalog?limit=3');
    const headers = http.calls[0]!.init.headers as Record<string, string>;
    expect(headers.authorization).toBe('Bearer rpa_app');
    expect(http.calls[0]!.init.credentials).toBe('omit');
    expect(frame.received).toEqual([
      { message: { type: 'register-api-result', id: 'r1', status: 200, body: { data: [{ id: 'itm_1' }] } }, targetOrigin: '*' },
    ]);
    expect(calls).toEqual([{ method: 'GET', path: '/api/pos/catalog?limit=3', status: 200 }]);
  });

  it('passes the server status through (403 outside the app scopes) and sends POST bodies with an Idempotency-Key', async () => {
    const frame = fakeFrame();
    const problem = { status: 403, code: 'staff_only', title: 'Forbidden' };
    const http = fakeFetch(403, problem);
    const handle = createAppBridge({ frame: () => frame, appToken: async () => 'rpa_app', fetch: http.fn });
    handle({
      source: frame as unknown as Window,
      origin: 'null',
      data: { type: 'register-api', id: 2, method: 'POST', path: '/api/pos/orders', body: { lines: [] } },
    });
    await flush();
    await flush();
    const init = http.calls[0]!.init;
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"lines":[]}');
    expect((init.headers as Record<string, string>)['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(frame.received[0]!.message).toEqual({ type: 'register-api-result', id: 2, status: 403, body: problem });
  });

  it('ignores messages from another window, from a non-sandboxed origin, and of any other shape', async () => {
    const frame = fakeFrame();
    const other = fakeFrame();
    const http = fakeFetch();
    const handle = createAppBridge({ frame: () => frame, appToken: async () => 'rpa_app', fetch: http.fn });
    handle({ source: other as unknown as Window, origin: 'null', data: request });
    handle({ source: null, origin: 'null', data: request });
    handle({ source: frame as unknown as Window, origin: 'http://localhost:8787', data: request });
    handle({ source: frame as unknown as Window, origin: 'null', data: { ...request, path: '/api/pos/../staff/me' } });
    handle({ source: frame as unknown as Window, origin: 'null', data: { ...request, method: 'DELETE' } });
    handle({ source: frame as unknown as Window, origin: 'null', data: JSON.stringify(request) });
    await flush();
    expect(http.calls).toHaveLength(0);
    expect(frame.received).toHaveLength(0);
    expect(other.received).toHaveLength(0);
  });

  it('does not answer a frame that closed while the request ran', async () => {
    let frame: BridgeTarget | null = fakeFrame();
    const first = frame as ReturnType<typeof fakeFrame>;
    const http = fakeFetch();
    http.holdAll();
    const handle = createAppBridge({ frame: () => frame, appToken: async () => 'rpa_app', fetch: http.fn });
    handle({ source: frame as unknown as Window, origin: 'null', data: request });
    await flush();
    frame = null;
    http.releaseAll();
    await flush();
    await flush();
    expect(first.received).toHaveLength(0);
  });

  it('answers 429 beyond the requests allowed in flight, and status 0 when the server cannot be reached', async () => {
    const frame = fakeFrame();
    const http = fakeFetch();
    http.holdAll();
    const handle = createAppBridge({ frame: () => frame, appToken: async () => 'rpa_app', fetch: http.fn });
    for (let i = 0; i <= MAX_BRIDGE_IN_FLIGHT; i += 1) handle({ source: frame as unknown as Window, origin: 'null', data: { ...request, id: i } });
    await flush();
    expect(frame.received.map((r) => (r.message as { status: number }).status)).toEqual([429]);

    const offline = fakeFrame();
    const failing = createAppBridge({
      frame: () => offline,
      appToken: async () => 'rpa_app',
      fetch: (async () => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch,
    });
    failing({ source: offline as unknown as Window, origin: 'null', data: request });
    await flush();
    await flush();
    expect(offline.received[0]!.message).toMatchObject({ type: 'register-api-result', id: 'r1', status: 0 });
  });
});

describe('safeLaunchUrl', () => {
  const base = 'http://localhost:8787/';
  it('resolves a path on the register and keeps http(s) pages', () => {
    expect(safeLaunchUrl('/example-app/index.html', base)).toBe('http://localhost:8787/example-app/index.html');
    expect(safeLaunchUrl('https://labels.example/app?x=1', base)).toBe('https://labels.example/app?x=1');
  });
  it.each(['javascript:alert(1)', 'data:text/html,<script>1</script>', 'blob:http://localhost:8787/x', 'http://[bad'])('refuses %s', (url) => {
    expect(safeLaunchUrl(url, base)).toBeUndefined();
  });
});
