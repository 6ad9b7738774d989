/**
 * The loop every outbox relay runs (webhook deliveries, e-mail, SMS): a round at once on `start()`, the next one at
 * once while rounds find work, else after `pollIntervalMs`; a round that throws is reported to `onError` and the loop
 * goes on after the interval. `stop()` cancels the next round and waits for the one in progress. Timers are unref'd,
 * so an idle loop never holds the process open.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private isStopped = true;

  /**
   * @param round one round; resolves true when it found work (the next round then starts at once)
   * @param pollIntervalMs the wait after an idle or failed round, ms
   * @param onError where a failed round's error goes (default: ignored; the next round retries)
   */
  constructor(
    private readonly round: () => Promise<boolean>,
    private readonly pollIntervalMs: number,
    private readonly onError?: (err: unknown) => void,
  ) {}

  /** Starts polling (idempotent). */
  start(): void {
    if (!this.isStopped) return;
    this.isStopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits for the round in progress. */
  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.isStopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const round = this.round();
      this.running = round;
      round.then(
        (busy) => this.schedule(busy ? 0 : this.pollIntervalMs),
        (err: unknown) => {
          this.onError?.(err);
          this.schedule(this.pollIntervalMs);
        },
      );
    }, delayMs);
    this.timer.unref?.();
  }
}

/**
 * The relays' exponential backoff: the delay before the retry that follows attempt `attempt` (1-based),
 * base × 2^(attempt−1), capped at `maxMs`, in ms.
 */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), maxMs);
}
