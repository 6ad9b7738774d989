/**
 * The sync server the end-to-end tests drive: the real server on an in-memory database seeded with the demo store
 * (test/support/server.ts), listening on 127.0.0.1 and serving the built register from renderer/dist.
 */
import type { CatalogItem, TaxRate } from '../../../core/index.ts';
import type { Db } from '../../../sync-server/src/platform/db/db.ts';
import { startTestServer } from '../../support/server.ts';

export interface ServerUnderTest {
  baseUrl: string;
  staffToken: string;
  /** The demo owner's PIN: staff sign in with it on a register (the back office asks for it). */
  ownerPin: string;
  /** The seeded demo catalog, as the seed defines it (the tests' source of expected prices). */
  catalog: { items: readonly CatalogItem[]; taxRates: readonly TaxRate[] };
  /** The server's database and the demo store's id (for suites that seed rows directly, e.g. a large catalog). */
  db: Db;
  merchantId: string;
  close(): Promise<void>;
}

/** `demoSelfPair: false` starts it without demo mode: registers then pair with a code only. */
export async function startServerUnderTest(options: { demoSelfPair?: boolean } = {}): Promise<ServerUnderTest> {
  const server = await startTestServer({ listen: true, ...(options.demoSelfPair === false ? { demoSelfPair: false } : {}) });
  return {
    baseUrl: server.baseUrl.replace(/\/$/, ''),
    staffToken: server.credentials.staffToken,
    ownerPin: server.credentials.ownerPin,
    catalog: server.catalog,
    db: server.db,
    merchantId: server.credentials.merchantId,
    close: () => server.close(),
  };
}
