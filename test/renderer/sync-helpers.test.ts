import { describe, expect, it } from 'vitest';
import { missingSequences } from '../../renderer/src/register/sync/missing-receipts.ts';
import { chunkPushRows, MAX_PUSH_BATCH_BYTES, utf8Bytes } from '../../renderer/src/register/sync/push-batches.ts';

const row = (id: number, bytes: number) => ({ newDocumentState: { id: `ord_${id}`, note: 'é'.repeat(Math.max(0, Math.floor(bytes / 2))) } });

describe('push batches', () => {
  it('cuts by rows and bytes, keeps order, and sets apart rows too large for any request', () => {
    const rows = [
      row(1, 100_000),
      row(2, 100_000),
      row(3, 100_000),
      row(4, 2_000_000),
      row(5, 10),
      ...Array.from({ length: 60 }, (_, i) => row(10 + i, 10)),
    ];
    const { chunks, oversized } = chunkPushRows(rows);
    expect(oversized.map((o) => o.row.newDocumentState.id)).toEqual(['ord_4']);
    expect(oversized[0]!.bytes).toBeGreaterThan(1024 * 1024);
    for (const chunk of chunks) {
      expect(chunk.rows.length).toBeLessThanOrEqual(50);
      expect(chunk.bytes).toBe(utf8Bytes(chunk.body));
      expect(chunk.bytes).toBeLessThanOrEqual(MAX_PUSH_BATCH_BYTES);
      expect(JSON.parse(chunk.body)).toEqual(chunk.rows);
    }
    expect(chunks.flatMap((c) => c.rows)).toEqual(rows.filter((r) => r.newDocumentState.id !== 'ord_4'));
  });

  it('sends a row above the batch size but within the document limit alone', () => {
    const { chunks, oversized } = chunkPushRows([row(1, 10), row(2, 400_000), row(3, 10)]);
    expect(oversized).toEqual([]);
    expect(chunks.map((c) => c.rows.map((r) => r.newDocumentState.id))).toEqual([['ord_1'], ['ord_2'], ['ord_3']]);
  });
});

describe('missing receipts', () => {
  it("are the numbers handed out after the server's last that the register no longer holds", () => {
    expect(missingSequences(7, 3, new Set([1, 2, 3, 4, 5]))).toEqual([6, 7]);
    expect(missingSequences(7, 3, new Set())).toEqual([4, 5, 6, 7]);
    expect(missingSequences(3, 3, new Set())).toEqual([]);
    expect(missingSequences(0, 5, new Set())).toEqual([]);
    expect(missingSequences(5_000, 0, new Set())).toHaveLength(1000);
    expect(missingSequences(5_000, 0, new Set()).at(-1)).toBe(5_000);
  });
});
