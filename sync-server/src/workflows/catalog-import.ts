/**
 * The Shopify product CSV import (modules/catalog/csv.ts for the format): the catalog module imports the products,
 * the inventory module records the quantities as counts at the default location, and the catalog re-stamps the items
 * whose stock moved — all in one mutation, so a failed import writes nothing. A dry run does all of it and rolls back.
 */
import type { Principal } from '../platform/auth/identity.ts';
import type { AppContext } from '../platform/context.ts';
import { actorOf, mutation, type Mutation } from '../kernel/mutation.ts';
import { importCatalogRows, readCatalogCsv, type ImportReport, type ImportStockCounts } from '../modules/catalog/csv.ts';
import { ensureDefaultLocation, onHandAt } from '../modules/inventory/service.ts';
import { recordStockChange } from './stock-change.ts';

/** Thrown inside the mutation to roll a dry run back; carries the report. */
class DryRunRollback extends Error {
  constructor(readonly report: ImportReport) {
    super('dry run');
  }
}

/**
 * Imports `csv` (the file's text) for the caller's store: catalog `readCatalogCsv` (400 before any transaction) →
 * inventory `ensureDefaultLocation` → catalog `importCatalogRows`, whose stock step is inventory `onHandAt` +
 * {@link recordStockChange} (a `count` where the file's quantity differs from what is on hand). With `dryRun`, the
 * report is the same and nothing is written.
 * @throws ProblemError 400 `invalid_csv` when the text is not a Shopify product CSV.
 */
export async function importCatalog(ctx: AppContext, principal: Principal, csv: string, dryRun: boolean): Promise<ImportReport> {
  const { rows } = readCatalogCsv(csv);
  try {
    return await mutation(ctx, actorOf(principal), async (m) => {
      // Once, before any product's savepoint: a location created inside one that rolled back would be gone.
      const location = await ensureDefaultLocation(m.tx, m.merchantId);
      const report = await importCatalogRows(m, rows, { dryRun, countStock: countStockAt(m, location.id) });
      if (dryRun) throw new DryRunRollback(report);
      return report;
    });
  } catch (err) {
    if (err instanceof DryRunRollback) return err.report;
    throw err;
  }
}

/** The import's stock step at `locationId`: a count movement for each variation whose units on hand differ. */
function countStockAt(m: Mutation, locationId: string): ImportStockCounts {
  return async (counts, source) => {
    const onHand = await onHandAt(m.tx, m.merchantId, locationId, counts.map((c) => c.variationId));
    const changes = counts.filter((c) => onHand.get(c.variationId) !== c.counted);
    if (changes.length === 0) return 0;
    const result = await recordStockChange(m, {
      locationId,
      movements: changes.map((c) => ({ variationId: c.variationId, kind: 'count' as const, counted: c.counted, sourceId: source.sourceId, note: source.note })),
    });
    return result.recorded.length;
  };
}
