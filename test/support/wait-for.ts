/**
 * Polls `probe` every `intervalMs` until it answers something other than `undefined`, and resolves with that.
 * @param what named in the error, e.g. "every sale shown synced"; or a function answering that text at the timeout,
 * so the error can tell the state things were left in
 * @throws Error `timed out waiting for <what>` after `timeoutMs`
 */
export async function waitFor<T>(
  what: string | (() => string | Promise<string>),
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 90_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : await what()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Reads `read` every `intervalMs` until `done` holds for what it answered, and resolves with that answer.
 * @throws Error `timed out waiting for <what>: last <the last answer, as JSON>` after `timeoutMs`
 */
export async function waitUntil<T>(
  what: string,
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
