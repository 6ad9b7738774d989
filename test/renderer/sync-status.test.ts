import { describe, expect, it } from 'vitest';
import { badgeState, initialSyncStatus, type SyncStatus } from '../../renderer/src/common/sync-status.ts';

const status = (change: Partial<SyncStatus>): SyncStatus => ({ ...initialSyncStatus, isOnline: true, isLeader: true, isInSync: true, ...change });

describe('sync badge', () => {
  it('is synced only when online, caught up and nothing waits', () => {
    expect(badgeState(status({}))).toBe('synced');
    expect(badgeState(status({ unsyncedCount: 1 }))).toBe('syncing');
    expect(badgeState(status({ isInSync: false }))).toBe('syncing');
    expect(badgeState(status({ isOnline: false }))).toBe('offline');
    expect(badgeState(status({ error: 'HTTP 500' }))).toBe('error');
    expect(badgeState(status({ isOutdated: true }))).toBe('error');
  });

  it('lets a follower tab trust the shared unsynced count', () => {
    expect(badgeState(status({ isLeader: false, isInSync: false }))).toBe('synced');
    expect(badgeState(status({ isLeader: false, isInSync: false, unsyncedCount: 2 }))).toBe('syncing');
  });
});
