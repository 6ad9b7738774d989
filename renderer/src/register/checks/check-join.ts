/**
 * How the register joins the check documents it holds with the server's copies (core/check-documents.ts): a pulled
 * copy and a push's answer are merged with the local document by {@link mergeCheckDocument} — the check book's own
 * CRDT join — never written over it, so a line added here while another register moved it, or the server answered an
 * older state, is kept. A document equal to the server's copy keeps the server's stamp (`syncSeq`: nothing to push);
 * one that holds changes the server has not heard of has none, and is pushed (sync/replication.ts).
 */
import type { RxConflictHandler, WithDeleted } from 'rxdb';
import { canonicalJson, mergeCheckDocument, type CheckCollection, type CheckDocument } from '../../../../core/index.ts';

type Stored = Record<string, unknown>;

/** What the register keeps beside the core document: server stamps, quarantine marker, RxDB's own fields. */
const LOCAL_FIELDS = new Set(['updatedAt', 'syncSeq', 'rejection', '_deleted', '_meta', '_rev', '_attachments']);

/** The core document of a stored one (its server stamps, quarantine marker and RxDB fields left out). */
export function coreCheckDocument(doc: Stored): CheckDocument {
  return Object.fromEntries(Object.entries(doc).filter(([key]) => !LOCAL_FIELDS.has(key))) as unknown as CheckDocument;
}

/**
 * The document to keep when the server's copy `pulled` (with its `syncSeq`) meets `held` (undefined: not held here):
 * `pulled` itself when the join adds nothing to it, else the join without the server's stamp (to be pushed). A held
 * document the server refused (`rejection`) is replaced by the server's copy.
 */
export function joinPulled(collection: CheckCollection, held: Stored | undefined, pulled: Stored): Stored {
  if (!held || held.rejection !== undefined) return pulled;
  const theirs = coreCheckDocument(pulled);
  const joined = mergeCheckDocument(collection, coreCheckDocument(held), theirs);
  return canonicalJson(joined) === canonicalJson(theirs) ? pulled : (joined as unknown as Stored);
}

/** Content equality of two stored documents, server stamps left out (the quarantine marker counts). */
function sameContent(a: Stored, b: Stored): boolean {
  const strip = (doc: Stored) => Object.fromEntries(Object.entries(doc).filter(([key]) => key === 'rejection' || !LOCAL_FIELDS.has(key)));
  return canonicalJson(strip(a)) === canonicalJson(strip(b));
}

/**
 * RxDB's conflict handler of a check collection: when a push is answered with the server's copy (it held changes this
 * register had not heard of), the two are joined rather than the server's taken; a refused document takes the
 * server's copy with its quarantine marker (never pushed again).
 */
export function checkConflictHandler(collection: CheckCollection): RxConflictHandler<any> {
  return {
    isEqual: (a: WithDeleted<Stored>, b: WithDeleted<Stored>) => sameContent(a, b),
    resolve: async ({ newDocumentState, realMasterState }) => {
      if ((realMasterState as Stored).rejection !== undefined) return realMasterState;
      return { ...joinPulled(collection, newDocumentState as Stored, realMasterState as Stored), _deleted: false } as WithDeleted<Stored>;
    },
  };
}
