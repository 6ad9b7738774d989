import { EventEmitter } from 'node:events';

/** PostgreSQL channel carrying `{"merchantId","collections":[…]}` (older instances: `"collection"`) between server instances. */
export const CHANGE_CHANNEL = 'register_changes';

/**
 * Fan-out of committed writes: writers call {@link ChangeFeed.notify} after their transaction
 * commits; each SSE connection listens for its merchant and collection and then pulls from its own last sequence, so
 * a notification carries no data and none can be missed or reordered. With `publish` (PostgreSQL NOTIFY), the
 * notification goes through the database and reaches every instance via {@link ChangeFeed.deliver}; without it
 * (PGlite, one process) it is delivered in process.
 */
export class ChangeFeed {
  private readonly emitter = new EventEmitter();

  /** `publish` sends one notification naming every collection of one commit (one NOTIFY, one round trip). */
  constructor(private readonly publish?: (merchantId: string, collections: readonly string[]) => Promise<void>) {
    this.emitter.setMaxListeners(0);
  }

  /** Tells every subscriber of `merchantId` to each of `collections` that a write to it was committed. */
  notify(merchantId: string, ...collections: string[]): void {
    if (collections.length === 0) return;
    const deliverAll = () => collections.forEach((collection) => this.deliver(merchantId, collection));
    if (!this.publish) return deliverAll();
    // If NOTIFY fails, at least this instance's streams hear of the change.
    this.publish(merchantId, collections).catch(deliverAll);
  }

  /** Delivers a change to this instance's subscribers (called by the LISTEN side). */
  deliver(merchantId: string, collection: string): void {
    this.emitter.emit(`${merchantId}:${collection}`);
  }

  subscribe(merchantId: string, collection: string, listener: () => void): () => void {
    const name = `${merchantId}:${collection}`;
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}

/** A change feed for writes made before any server listens (the demo seed, main.ts's start-up): no register can be told yet. */
export const NO_FEED = new ChangeFeed();
