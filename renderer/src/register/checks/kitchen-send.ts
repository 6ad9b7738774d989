/**
 * The one hand-off of kitchen tickets to printers (core/kitchen.ts builds them). Each ticket goes to its station's
 * printer (device settings `kitchenPrinters`, `devices/kitchen-job.ts`); a station with no printer of its own — a
 * small kitchen with one printer — prints on the receipt printer. Both queues keep job ids, and a ticket's id derives
 * from its send id, so a ticket handed over twice prints once.
 */
import type { PrintJob } from '../../../../core/devices.ts';
import type { KitchenRouting } from '../../../../core/index.ts';
import { getDeviceClient } from '../../platform/devices/index.ts';
import { printKitchenTickets } from '../devices/kitchen-job.ts';

/**
 * Where lines go until stations are set up on the server: one station, the kitchen, for every item (core
 * `KitchenRouting`).
 */
export const DEFAULT_KITCHEN_ROUTING: KitchenRouting = {
  stations: [{ id: 'kitchen', name: 'Kitchen' }],
  byItem: {},
  byCategory: {},
  defaultStationId: 'kitchen',
};

/** Failures that mean "this station has no printer of its own": its tickets go to the receipt printer instead. */
const NO_STATION_PRINTER = new Set(['station_not_configured', 'unrouted']);

/**
 * Hands the jobs of one send (or fire, or void) to the printers, in order: each to its station's printer, or to the
 * receipt printer when the station has none.
 * @param routing the routing the jobs were made with (its stations name the printers).
 * @returns how many jobs were queued or found queued before
 * @throws Error naming the first ticket that could not be handed over (bridge down, queue refused it) — the lines stay
 *   sent: handing the same send over again prints each ticket once
 */
export async function sendKitchenJobs(jobs: readonly PrintJob[], routing: KitchenRouting = DEFAULT_KITCHEN_ROUTING): Promise<number> {
  const devices = getDeviceClient();
  const report = await printKitchenTickets(jobs, { stations: routing.stations, client: devices });
  for (const ticket of report.tickets) {
    if (ticket.state !== 'failed') continue;
    if (ticket.code === undefined || !NO_STATION_PRINTER.has(ticket.code)) {
      throw new Error(`kitchen ticket ${ticket.jobId} was not printed: ${ticket.message ?? ticket.code ?? 'unknown error'}`);
    }
    const job = jobs.find((candidate) => candidate.jobId === ticket.jobId);
    if (job) await devices.print(job);
  }
  return jobs.length;
}
