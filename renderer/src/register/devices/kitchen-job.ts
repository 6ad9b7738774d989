/**
 * Kitchen tickets to the stations' printers: the print jobs `kitchenTicketJobs` (core/kitchen.ts) makes for a send,
 * a change or a void of a check — tickets in double size, job id `kt-<send id>-<station>` — handed to the device
 * host, which journals each in the queue of its station's printer (device settings `kitchenPrinters`, station id →
 * port) before answering, and prints it there once.
 *
 * Once: the job id is the ticket's idempotency key in that queue. Handing the same send over again — a retry after a
 * failure, the check screen sending again after the register or the bridge restarted mid-queue — answers
 * `duplicate` for every ticket already journaled and prints nothing twice; a ticket journaled before a crash prints
 * when the bridge is back. So a caller that is not sure may always hand the same jobs again.
 */
import type { PrintJob } from '../../../../core/devices.ts';
import type { KitchenStation } from '../../../../core/kitchen.ts';
import { DeviceCallFailure, getDeviceClient, type DeviceClient } from '../../platform/devices/index.ts';

/** What became of one ticket. */
export interface KitchenTicketOutcome {
  jobId: string;
  /** The station the ticket is for (null when its job id names no station of `stations`). */
  stationId: string | null;
  /**
   * `queued`: journaled on its station's printer; `duplicate`: journaled or printed before, not printed again;
   * `failed`: not handed over (see `code` and `message`) — hand the same jobs again later.
   */
  state: 'queued' | 'duplicate' | 'failed';
  /**
   * For `failed`: `unrouted` (no station), `station_not_configured` (no printer set up for the station), a transport
   * code (`bridge_unavailable`, `disconnected`, `timeout`, …) or a driver code (`queue_io`, `invalid_input`, …).
   */
  code?: string;
  message?: string;
}

/** The outcome of one hand-over: `ok` when every ticket is on its printer's queue (queued now or before). */
export interface KitchenPrintReport {
  ok: boolean;
  tickets: KitchenTicketOutcome[];
}

/**
 * The station a kitchen job is for: the longest id of `stations` that ends its job id as `-<station id>` after the
 * `kt-` prefix (station ids may themselves hold `-`), or null.
 */
export function stationOfKitchenJob(jobId: string, stations: readonly Pick<KitchenStation, 'id'>[]): string | null {
  if (!jobId.startsWith('kt-')) return null;
  let found: string | null = null;
  for (const { id } of stations) {
    if (jobId.length > 3 + id.length + 1 && jobId.endsWith(`-${id}`) && (found === null || id.length > found.length)) found = id;
  }
  return found;
}

/**
 * Hands kitchen tickets to their stations' printers, one after the other, and says what became of each. Never
 * throws: a ticket that could not be handed over is `failed` with the reason, the others are still handed over.
 * @param jobs the jobs of `kitchenTicketJobs` (core/kitchen.ts) for one send, change or void.
 * @param options.stations the stations the jobs were made for (`KitchenRouting.stations`): a job goes to the station
 *   its id names.
 * @param options.client the device client (default: the page's, `getDeviceClient()`).
 */
export async function printKitchenTickets(
  jobs: readonly PrintJob[],
  options: { stations: readonly Pick<KitchenStation, 'id'>[]; client?: Pick<DeviceClient, 'printKitchen'> },
): Promise<KitchenPrintReport> {
  const client = options.client ?? getDeviceClient();
  const tickets: KitchenTicketOutcome[] = [];
  for (const job of jobs) {
    const stationId = stationOfKitchenJob(job.jobId, options.stations);
    if (stationId === null) {
      tickets.push({ jobId: job.jobId, stationId, state: 'failed', code: 'unrouted', message: `ticket ${job.jobId} names no kitchen station` });
      continue;
    }
    try {
      const { duplicate } = await client.printKitchen({ stationId, job });
      tickets.push({ jobId: job.jobId, stationId, state: duplicate ? 'duplicate' : 'queued' });
    } catch (error) {
      const failure =
        error instanceof DeviceCallFailure ? error : new DeviceCallFailure('internal', error instanceof Error ? error.message : String(error));
      tickets.push({ jobId: job.jobId, stationId, state: 'failed', code: failure.code, message: failure.message });
    }
  }
  return { ok: tickets.every((ticket) => ticket.state !== 'failed'), tickets };
}
