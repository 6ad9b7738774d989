import type { FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';

/**
 * Which methods a path takes, for `405 Method Not Allowed` with its `Allow` header (RFC 9110 §15.5.6, §10.2.1):
 * Fastify answers a known path with an unknown method through its not-found handler, which cannot tell that case
 * from an unknown path. So every route registered on the app from {@link trackAllowedMethods} on is added to a
 * second router of the same library and options Fastify routes with (find-my-way, `maxParamLength` 100), and the
 * not-found handler asks it, method by method, which ones match the path.
 */
interface Tracked {
  router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;
  methods: Set<string>;
}

const tracked = new WeakMap<FastifyInstance, Tracked>();

/** The route store: its URL pattern, so a catch-all (`/*`) can be told apart. */
interface RouteStore {
  url: string;
}

/**
 * Starts mirroring every route registered on `app` (call it before registering routes). HEAD routes Fastify adds
 * for GET routes are mirrored too, so a GET path allows `GET, HEAD`.
 */
export function trackAllowedMethods(app: FastifyInstance): void {
  const router = FindMyWay({ maxParamLength: 100, ignoreTrailingSlash: false, caseSensitive: true });
  const state: Tracked = { router, methods: new Set() };
  tracked.set(app, state);
  app.addHook('onRoute', (options) => {
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    for (const method of methods) {
      try {
        router.on(method as HTTPMethod, options.url, () => undefined, { url: options.url } satisfies RouteStore);
        state.methods.add(method);
      } catch {
        // A pattern Fastify accepted but the mirror refuses (a duplicate): it is already known.
      }
    }
  });
}

/**
 * The methods `path` (no query string) is registered for, sorted, e.g. `['GET', 'HEAD', 'POST']`; empty for an
 * unknown path. `ignoreCatchAll` leaves out matches that only a catch-all route (`/*`, the built register's files)
 * gives — for API paths, which the catch-all does not serve.
 */
export function allowedMethods(app: FastifyInstance, path: string, options: { ignoreCatchAll?: boolean } = {}): string[] {
  const state = tracked.get(app);
  if (!state) return [];
  const allowed: string[] = [];
  for (const method of state.methods) {
    const found = state.router.find(method as HTTPMethod, path);
    if (!found) continue;
    const store = found.store as RouteStore | null;
    if (options.ignoreCatchAll && store?.url === '/*') continue;
    allowed.push(method);
  }
  return allowed.sort();
}
