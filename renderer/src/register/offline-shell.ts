/**
 * The app shell this register reopens from without a network: the service worker (registered in main.tsx) precaches
 * every file of the build on install and only then becomes active. Until it is active, a register that loses its
 * server and restarts has nothing to open — so a fresh pairing waits for it before the register shows itself ready.
 */

/**
 * Resolves `true` once a service worker controls this origin with the shell precached, `false` when none is
 * expected (a development build, or a browser without service workers) or when `timeoutMs` (ms) passes first.
 * Never rejects.
 */
export function offlineShellReady(timeoutMs = 60_000): Promise<boolean> {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    navigator.serviceWorker.ready.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(false);
      },
    );
  });
}
