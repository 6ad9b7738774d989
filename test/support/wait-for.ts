/**
 * Polls `probe` every `intervalMs` until it answers something other than `undefined`, and resolves with that.
 * @param what named in the error, e.g. "every sale shown synced"
 * @throws Error `timed out waiting for <what>` after `timeoutMs`
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 90_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
