/**
 * The replication protocol over real HTTP, as a register speaks it, for server suites: pair a register
 * (`POST /api/dev/pair-register`), push documents (`POST /api/sync/:collection/push`, rows with no assumed master
 * state), pull one page or everything after a checkpoint (`GET /api/sync/:collection/pull`).
 */
import type { EnrolledRegister } from './enroll.ts';

/** A replicated document as the server answers it: the core shape plus the server's stamps. */
export type SyncDoc = Record<string, unknown> & { id: string; syncSeq: number; updatedAt: string; _deleted: boolean };

/** One pull page: documents after the checkpoint sent, and the checkpoint to send next (null: nothing yet). */
export interface PullPage {
  documents: SyncDoc[];
  checkpoint: { seq: number } | null;
}

/** A push's answer: HTTP status, headers (lower-case names) and parsed body (the conflicts on 200, else a problem). */
export interface PushAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Pairs a new register with the demo store of the server at `baseUrl` through demo mode's loopback self-pairing
 * (`POST /api/dev/pair-register`, on in test servers); its register credential (`registerToken`) comes with it.
 */
export async function pairRegister(baseUrl: string): Promise<EnrolledRegister> {
  const res = await fetch(`${baseUrl}/api/dev/pair-register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (res.status !== 200) throw new Error(`pair-register: HTTP ${res.status}`);
  return (await res.json()) as EnrolledRegister;
}

/** Push and pull for one bearer token (a register credential) against the server at `baseUrl`. */
export function syncClient(baseUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'x-register-schema-version': '1' };
  const pull = async (collection: string, seq?: number, limit = 100): Promise<PullPage> => {
    const res = await fetch(`${baseUrl}/api/sync/${collection}/pull?${seq === undefined ? '' : `seq=${seq}&`}limit=${limit}`, { headers });
    if (res.status !== 200) throw new Error(`pull ${collection}: HTTP ${res.status}`);
    return (await res.json()) as PullPage;
  };
  return {
    /** Pushes `docs` as new document states (no assumed master state). */
    async push(collection: string, docs: readonly unknown[]): Promise<PushAnswer> {
      const res = await fetch(`${baseUrl}/api/sync/${collection}/push`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(docs.map((d) => ({ assumedMasterState: null, newDocumentState: d }))),
      });
      return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.json() };
    },
    pull,
    /** Every document of `collection`, page by page from the start. */
    async pullAll(collection: string): Promise<SyncDoc[]> {
      const docs: SyncDoc[] = [];
      let seq: number | undefined;
      for (;;) {
        const page = await pull(collection, seq);
        docs.push(...page.documents);
        if (page.documents.length === 0 || !page.checkpoint) return docs;
        seq = page.checkpoint.seq;
      }
    },
  };
}
