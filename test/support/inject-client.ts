/**
 * Calls a built server in-process (fastify `inject`), the way the API suites do: a bearer token when given, a JSON
 * body when given. `onAnswer` sees every answer (e.g. to check it against the OpenAPI document).
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** The JSON body of an answer. */
export type Json = Record<string, any>; // answers of many shapes

export interface InjectClient {
  /** `method url` with `Authorization: Bearer <token>` and `body` as JSON (each only when given). */
  call(method: string, url: string, token?: string, body?: unknown): Promise<LightMyRequestResponse>;
  /** The same call, expected to succeed (2xx, the body named in the failure); its JSON body. */
  ok(method: string, url: string, token: string | undefined, body?: unknown): Promise<Json>;
}

/** A client of the server `app()` gives (read at each call: suites build their server in `beforeAll`). */
export function injectClient(
  app: () => FastifyInstance,
  onAnswer?: (method: string, url: string, res: LightMyRequestResponse) => void,
): InjectClient {
  const call = async (method: string, url: string, token?: string, body?: unknown) => {
    const res = await app().inject({
      method: method as 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    onAnswer?.(method, url, res);
    return res;
  };
  return {
    call,
    async ok(method, url, token, body) {
      const res = await call(method, url, token, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
      return res.json();
    },
  };
}
