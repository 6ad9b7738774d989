/**
 * The store's kitchen set-up (stations, routing, ticket age thresholds: core/kitchen-display.ts), saved whole from a
 * version, and the trail of bumps and recalls of tickets on the stations' displays. This module is the one writer of
 * `kitchen_setups` and `kitchen_ticket_events`.
 */
import {
  EMPTY_KITCHEN_SETUP,
  kitchenSetupIssues,
  newId,
  type KitchenSetup,
  type KitchenSetupUpdate,
  type KitchenTicketEvent,
} from '../../../../core/index.ts';
import type { Mutation } from '../../kernel/mutation.ts';
import { jsonValue, type Queryable } from '../../platform/db/db.ts';
import { ProblemError } from '../../platform/http/problem.ts';

type StoredSetup = Omit<KitchenSetup, 'version' | 'updatedAt'>;

interface SetupRow {
  version: number;
  setup: StoredSetup;
  updated_at: Date;
}

function setupOf(row: SetupRow | undefined): KitchenSetup {
  if (!row) return EMPTY_KITCHEN_SETUP;
  return { version: Number(row.version), ...jsonValue<StoredSetup>(row.setup), updatedAt: new Date(row.updated_at).toISOString() };
}

/** The store's kitchen set-up; version 0 with no stations and the default thresholds when never saved. */
export async function readKitchenSetup(db: Queryable, merchantId: string): Promise<KitchenSetup> {
  const { rows } = await db.query<SetupRow>('SELECT version, setup, updated_at FROM kitchen_setups WHERE merchant_id = $1', [merchantId]);
  return setupOf(rows[0]);
}

const invalid = (issues: { path: string; message: string }[]) =>
  new ProblemError(
    400,
    'validation_error',
    `Invalid ${issues.map((i) => i.path).join(', ')}: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
    issues,
  );

/**
 * Saves the set-up as edited from `update.version`: the version goes up by one and one audit entry
 * `kitchen_setup.saved` names the stations added, removed and renamed and the thresholds.
 * @throws ProblemError 409 `kitchen_setup_changed` when the stored version is not `update.version` (saved by someone
 *   else in between: reload and edit again); 400 `validation_error` naming each field that breaks a rule of
 *   `kitchenSetupIssues` (station ids unique, routes to stations set up, late after warn).
 */
export async function saveKitchenSetup(m: Mutation, update: KitchenSetupUpdate): Promise<KitchenSetup> {
  const issues = kitchenSetupIssues(update);
  if (issues.length > 0) throw invalid(issues);
  // Locks the row (a first save relies on the primary key): two saves from one version cannot both pass.
  const { rows } = await m.tx.query<SetupRow>('SELECT version, setup, updated_at FROM kitchen_setups WHERE merchant_id = $1 FOR UPDATE', [
    m.merchantId,
  ]);
  const before = setupOf(rows[0]);
  if (before.version !== update.version)
    throw new ProblemError(
      409,
      'kitchen_setup_changed',
      `The kitchen set-up was saved by someone else since you opened it (version ${before.version}, yours ${update.version}): reload it and make your changes again.`,
    );
  const { version: _v, ...stored } = update;
  const version = before.version + 1;
  const now = m.now.toISOString();
  await m.tx.query(
    `INSERT INTO kitchen_setups (merchant_id, version, setup, updated_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id) DO UPDATE SET version = EXCLUDED.version, setup = EXCLUDED.setup, updated_at = EXCLUDED.updated_at`,
    [m.merchantId, version, JSON.stringify(stored), now],
  );
  const was = new Map(before.stations.map((s) => [s.id, s.name]));
  const is = new Map(update.stations.map((s) => [s.id, s.name]));
  await m.audit({
    action: 'kitchen_setup.saved',
    entityType: 'kitchen_setup',
    entityId: m.merchantId,
    data: {
      version,
      stationsAdded: [...is].filter(([id]) => !was.has(id)).map(([id, name]) => ({ id, name })),
      stationsRemoved: [...was].filter(([id]) => !is.has(id)).map(([id, name]) => ({ id, name })),
      stationsRenamed: [...is]
        .filter(([id, name]) => was.has(id) && was.get(id) !== name)
        .map(([id, name]) => ({ id, from: was.get(id)!, to: name })),
      routesByItem: Object.keys(update.byItem).length,
      routesByCategory: Object.keys(update.byCategory).length,
      defaultStationId: update.defaultStationId,
      notPrepared: update.notPrepared.length,
      warnAfterMinutes: update.warnAfterMinutes,
      lateAfterMinutes: update.lateAfterMinutes,
    },
  });
  return { version, ...stored, updatedAt: now };
}

interface EventRow {
  station_id: string;
  send_id: string;
  action: 'bump' | 'recall';
  at: Date;
  register_id: string | null;
  staff_id: string | null;
}

const eventOf = (r: EventRow): KitchenTicketEvent => ({
  stationId: r.station_id,
  sendId: r.send_id,
  action: r.action,
  at: new Date(r.at).toISOString(),
  registerId: r.register_id,
  staffId: r.staff_id,
});

/** The bumps and recalls recorded for these sends (all stations), oldest first (the order they were recorded). */
export async function readTicketEvents(db: Queryable, merchantId: string, sendIds: readonly string[]): Promise<KitchenTicketEvent[]> {
  if (sendIds.length === 0) return [];
  const { rows } = await db.query<EventRow>(
    `SELECT station_id, send_id, action, at, register_id, staff_id FROM kitchen_ticket_events
     WHERE merchant_id = $1 AND send_id = ANY($2) ORDER BY id`,
    [merchantId, [...new Set(sendIds)]],
  );
  return rows.map(eventOf);
}

/**
 * Records a bump (the ticket is done) or a recall (back on the display) of the ticket of `sendId` at `stationId`, in
 * the caller's mutation (which holds the store's write lock, so two displays cannot both bump one ticket), with its
 * audit entry `kitchen_ticket.bumped` / `kitchen_ticket.recalled`.
 * @param bumped whether the ticket is bumped now (its latest event), as the caller read it in this mutation
 * @throws ProblemError 409 `ticket_already_bumped` / `ticket_not_bumped` when the ticket is not in the state the
 *   action leaves from.
 */
export async function recordTicketEvent(
  m: Mutation,
  event: { stationId: string; sendId: string; action: 'bump' | 'recall'; checkId: string; bumped: boolean },
  who: { registerId: string | null; staffId: string | null },
): Promise<KitchenTicketEvent> {
  if (event.action === 'bump' && event.bumped)
    throw new ProblemError(409, 'ticket_already_bumped', `The ticket of ${event.sendId} was bumped at ${event.stationId} already.`);
  if (event.action === 'recall' && !event.bumped)
    throw new ProblemError(
      409,
      'ticket_not_bumped',
      `The ticket of ${event.sendId} is on the ${event.stationId} display: there is nothing to recall.`,
    );
  const id = newId('kitchenTicketEvent');
  const at = m.now.toISOString();
  await m.tx.query(
    `INSERT INTO kitchen_ticket_events (id, merchant_id, station_id, send_id, action, at, register_id, staff_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, m.merchantId, event.stationId, event.sendId, event.action, at, who.registerId, who.staffId],
  );
  await m.audit({
    action: event.action === 'bump' ? 'kitchen_ticket.bumped' : 'kitchen_ticket.recalled',
    entityType: 'kitchen_ticket',
    entityId: `${event.sendId}:${event.stationId}`,
    data: { sendId: event.sendId, stationId: event.stationId, checkId: event.checkId, registerId: who.registerId, staffId: who.staffId },
  });
  return { stationId: event.stationId, sendId: event.sendId, action: event.action, at, ...who };
}
