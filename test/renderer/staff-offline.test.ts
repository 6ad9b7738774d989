/**
 * Offline staff sign-in on the register (renderer/src/common/staff-offline.ts), on RxDB with Dexie over
 * fake-indexeddb: a verifier made at an online sign-in lets that staff member sign in offline with the same PIN on the
 * same register only, within the store's window; five wrong PINs lock offline sign-in (the lock survives a reopened
 * database); what the server lists once online drops disabled staff and changed PINs and says who must be signed out.
 * PBKDF2 runs with few iterations here (the register's count is a constant checked below).
 */
import 'fake-indexeddb/auto';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { openRegisterDatabase, type RegisterDatabase } from '../../renderer/src/register/db/database.ts';
import {
  checkOfflinePin,
  loadStaffSession,
  makeVerifier,
  OFFLINE_MAX_TRIES,
  OFFLINE_PIN_ITERATIONS,
  offlineSignInStaff,
  reconcileWithServer,
  rememberOnlineSignIn,
  storeStaffSession,
  type OfflineStaff,
} from '../../renderer/src/common/staff-offline.ts';

const DAY = 24 * 3600_000;
const cara: OfflineStaff = { id: 'stf_cara', name: 'Cara Cashier', role: 'cashier', pinSetAt: '2026-05-01T00:00:00.000Z' };
const mo: OfflineStaff = { id: 'stf_mo', name: 'Mo Manager', role: 'manager', pinSetAt: '2026-05-01T00:00:00.000Z' };
const t0 = new Date('2026-05-04T10:00:00.000Z');

describe('offline staff sign-in', () => {
  let db: RegisterDatabase | undefined;
  let name = '';
  const open = async () => (db = await openRegisterDatabase({ name, storage: getRxStorageDexie(), multiInstance: false }));
  afterEach(async () => {
    await db?.remove();
    db = undefined;
  });

  it('lets a staff member verified online sign in offline with their PIN, on this register only, within the window', async () => {
    name = `so${Date.now()}a`;
    const d = await open();
    expect(OFFLINE_PIN_ITERATIONS).toBeGreaterThanOrEqual(200_000);
    const verifier = await makeVerifier('reg_1', cara, '2468', t0, 1000);
    expect(JSON.stringify(verifier)).not.toContain('2468');
    await rememberOnlineSignIn(d, verifier, 7, { staff: cara, expiresAt: new Date(t0.getTime() + 12 * 3600_000).toISOString() });
    expect((await loadStaffSession(d))?.staff.id).toBe('stf_cara');

    expect(await offlineSignInStaff(d, new Date(t0.getTime() + DAY))).toEqual([cara]);
    await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '2468', new Date(t0.getTime() + DAY))).resolves.toEqual(cara);
    // The same stored verifier on another register (another register id in the salt) does not match.
    await expect(checkOfflinePin(d, 'reg_2', 'stf_cara', '2468', new Date(t0.getTime() + DAY))).rejects.toMatchObject({ reason: 'wrong-pin' });
    // Someone never verified here, and Cara after the window (7 days), cannot.
    await expect(checkOfflinePin(d, 'reg_1', 'stf_mo', '2468', new Date(t0.getTime() + DAY))).rejects.toMatchObject({ reason: 'not-known' });
    expect(await offlineSignInStaff(d, new Date(t0.getTime() + 8 * DAY))).toEqual([]);
    await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '2468', new Date(t0.getTime() + 8 * DAY))).rejects.toMatchObject({ reason: 'not-known' });
    // A clock set back before the online check is refused.
    await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '2468', new Date(t0.getTime() - DAY))).rejects.toMatchObject({ reason: 'clock' });
  });

  it('locks offline sign-in after five wrong PINs, through a reopened database, and a right PIN resets the count', async () => {
    name = `so${Date.now()}b`;
    let d = await open();
    await rememberOnlineSignIn(d, await makeVerifier('reg_1', cara, '2468', t0, 1000), 7);
    const at = new Date(t0.getTime() + 3600_000);
    for (let i = 1; i < OFFLINE_MAX_TRIES - 1; i++)
      await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '0000', at)).rejects.toMatchObject({ reason: 'wrong-pin' });
    await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '2468', at)).resolves.toEqual(cara);
    for (let i = 1; i < OFFLINE_MAX_TRIES; i++)
      await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '0000', at)).rejects.toMatchObject({ reason: 'wrong-pin' });
    await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '0000', at)).rejects.toMatchObject({ reason: 'locked' });
    await d.close();
    d = await open();
    await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '2468', new Date(at.getTime() + 60_000))).rejects.toMatchObject({ reason: 'locked' });
    await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '2468', new Date(at.getTime() + 6 * 60_000))).resolves.toEqual(cara);
    // The next lockout is longer (10 min).
    const later = new Date(at.getTime() + 7 * 60_000);
    for (let i = 1; i < OFFLINE_MAX_TRIES; i++)
      await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '0000', later)).rejects.toMatchObject({ reason: 'wrong-pin' });
    await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '0000', later)).rejects.toMatchObject({
      reason: 'locked',
      message: expect.stringContaining('10 min'),
    });
  });

  it('once online, drops verifiers of staff the server no longer lists or whose PIN changed, and says who to sign out', async () => {
    name = `so${Date.now()}c`;
    const d = await open();
    await rememberOnlineSignIn(d, await makeVerifier('reg_1', cara, '2468', t0, 1000), 7);
    await rememberOnlineSignIn(d, await makeVerifier('reg_1', mo, '1357', t0, 1000), 7);
    const session = { staff: cara, expiresAt: new Date(t0.getTime() + 12 * 3600_000).toISOString(), offline: true };
    await storeStaffSession(d, session);
    // Still listed, renamed: kept, renamed, nobody signed out.
    expect(await reconcileWithServer(d, [{ ...cara, name: 'Cara C.' }, mo], 7, session)).toBe(false);
    expect((await offlineSignInStaff(d, t0)).map((s) => s.name)).toEqual(['Cara C.', 'Mo Manager']);
    // Mo's PIN was reset: his verifier goes; Cara (disabled) is no longer listed: hers goes and she is signed out.
    expect(await reconcileWithServer(d, [{ ...mo, pinSetAt: '2026-05-05T00:00:00.000Z' }], 7, session)).toBe(true);
    expect(await offlineSignInStaff(d, t0)).toEqual([]);
    await expect(checkOfflinePin(d, 'reg_1', 'stf_cara', '2468', t0)).rejects.toMatchObject({ reason: 'not-known' });
    // A window of 0 days: no offline sign-in at all.
    await rememberOnlineSignIn(d, await makeVerifier('reg_1', mo, '1357', t0, 1000), 7);
    expect(await reconcileWithServer(d, [mo], 0, undefined)).toBe(false);
    expect(await offlineSignInStaff(d, t0)).toEqual([]);
  });
});
