/**
 * The one hand-off of kitchen tickets to printers (core/kitchen.ts builds them): today every job goes to the
 * register's persistent print queue (platform/devices), which keeps job ids — a ticket's id derives from its send id —
 * so a ticket handed over twice prints once. Per-station printers will replace this function's body; its callers
 * (checks/check-actions.ts) stay as they are.
 */
import type { PrintJob } from '../../../../core/devices.ts';
import type { KitchenRouting } from '../../../../core/index.ts';
import { getDeviceClient } from '../../platform/devices/index.ts';

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

/**
 * Hands the jobs of one send (or fire, or void) to the printers, in order.
 * @returns how many jobs were queued
 * @throws the print queue's error (no device layer, the queue refused a job) — the lines stay sent: handing the same
 *   send over again prints each ticket once
 */
export async function sendKitchenJobs(jobs: readonly PrintJob[]): Promise<number> {
  const devices = getDeviceClient();
  for (const job of jobs) await devices.print(job);
  return jobs.length;
}
