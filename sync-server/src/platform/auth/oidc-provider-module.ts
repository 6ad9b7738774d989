/**
 * The `oidc-provider` module, loaded once and on first use. On loading it prints "oidc-provider WARNING: Unsupported
 * runtime. Use Node.js v22.x LTS, or a later LTS release." on every Node.js but an LTS from 22 on. Register asks
 * for Node.js 22.12+ and still runs its whole suite on Node.js 20 (README), so that one line — and only
 * that line, only while the module loads — is left out; every other warning of the library is printed as it is.
 */
type OidcProviderModule = typeof import('oidc-provider');

const RUNTIME_WARNING = 'oidc-provider WARNING: Unsupported runtime.';
let loading: Promise<OidcProviderModule> | undefined;

/** Imports `oidc-provider` (memoised). @throws whatever the import throws. */
export function loadOidcProvider(): Promise<OidcProviderModule> {
  loading ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes(RUNTIME_WARNING)) return;
      warn.apply(console, args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return loading;
}
