/**
 * core/ids.ts: ids drawn from the pooled random source are well-formed ULIDs (https://github.com/ulid/spec), carry
 * their creation time, never repeat across pool refills, and use the whole base-32 alphabet in their random part.
 */
import { decodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import { isId, newId, ulid } from '../../core/index.ts';

describe('ids', () => {
  it('draws well-formed, distinct ULIDs across many pool refills', () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, () => ulid()); // 320,000 random characters: ~80 refills of the pool
    const after = Date.now();
    expect(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [ids[0]!, ids.at(-1)!]) {
      expect(decodeTime(id)).toBeGreaterThanOrEqual(before);
      expect(decodeTime(id)).toBeLessThanOrEqual(after);
    }
    const used = new Set(ids.flatMap((id) => [...id.slice(10)]));
    expect(used.size).toBe(32);
    expect(isId('order', newId('order'))).toBe(true);
  });
});
