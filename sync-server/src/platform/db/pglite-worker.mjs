// The embedded database's own thread: one PGlite, driven by messages from the server's main thread
// (sync-server/src/platform/db/db.ts `openPgliteDb`). PGlite runs each statement synchronously (WebAssembly), so in the
// main thread a statement of 50–100 ms held every request, timer and connection of the server for as long; here it
// holds only this thread. Plain JavaScript so that it loads as it is under every runner (tsx, vitest, node).
//
// workerData: { dataDir?: string, loadDataDir?: Uint8Array } — the data directory (omitted: in memory), or a tarball
// of one (PGlite's `dumpDataDir`) to start from.
//
// Requests (main → worker), each with a numeric `id`; the answer carries the same id:
//   { op: 'query', sql, params, tx? }  → { rows }     (tx: a transaction id from 'begin'; else outside any)
//   { op: 'exec', sql, tx? }           → {}
//   { op: 'begin' }                    → { tx }       (answered once PGlite's transaction has begun: it holds PGlite's
//                                                      mutex, so plain queries wait for its end, as in one thread)
//   { op: 'end', tx, commit }          → {}           (COMMIT, or ROLLBACK when commit is false; answered when done)
//   { op: 'close' }                    → {}
// Answers: { id, ok: true, ...result } or { id, ok: false, error: { message, name, ...the error's own fields } }.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';

// btree_gist: the appointments' exclusion constraint (a staff member's or a resource's holds never overlap) mixes
// text equality with range overlap in one GiST index (decision 0110).
const options = { extensions: { btree_gist } };
if (workerData?.dataDir) options.dataDir = workerData.dataDir;
if (workerData?.loadDataDir) options.loadDataDir = new Blob([workerData.loadDataDir]);
const pglite = new PGlite(options);

/** Open transactions by id: PGlite's transaction handle, how to end it, and its end (see `begin`). */
const transactions = new Map();
let nextTx = 1;
/** Thrown inside PGlite's transaction to roll it back: not an error to report. */
const ROLLBACK = Symbol('rollback');

function errorOf(err) {
  if (!(err instanceof Error)) return { message: String(err), name: 'Error' };
  const own = {};
  for (const key of Object.keys(err)) {
    const value = err[key];
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) own[key] = value;
  }
  return { ...own, message: err.message, name: err.name };
}

function handleOf(tx) {
  if (tx === undefined) return pglite;
  const open = transactions.get(tx);
  if (!open) throw new Error(`transaction ${tx} is not open`);
  return open.handle;
}

/**
 * Begins a transaction with PGlite's own `transaction()` (BEGIN once its mutex is free) whose callback waits for
 * 'end'. Answers once it has begun; fails with BEGIN's error.
 */
function begin() {
  return new Promise((answer, fail) => {
    const tx = nextTx++;
    let begun = false;
    let open;
    // Resolves when PGlite has committed or rolled the transaction back; rejects with COMMIT's (or BEGIN's) error.
    const ended = pglite
      .transaction(
        (handle) =>
          new Promise((commit, rollback) => {
            open = { handle, commit, rollback };
            transactions.set(tx, open);
            begun = true;
            answer({ tx });
          }),
      )
      .then(
        () => undefined,
        (err) => {
          if (err !== ROLLBACK) throw err;
        },
      )
      .finally(() => transactions.delete(tx));
    ended.catch((err) => {
      if (begun) return; // 'end' reports it
      ends.delete(tx);
      fail(err);
    });
    ends.set(tx, ended);
  });
}

/** Each open transaction's end (see `begin`). */
const ends = new Map();

/** Commits (or rolls back) transaction `tx`; answers when PGlite is done, with COMMIT's error if it failed. */
async function end(tx, commit) {
  const open = transactions.get(tx);
  const ended = ends.get(tx);
  if (!open || !ended) throw new Error(`transaction ${tx} is not open`);
  ends.delete(tx);
  if (commit) open.commit();
  else open.rollback(ROLLBACK);
  await ended;
  return {};
}

async function handle(message) {
  switch (message.op) {
    case 'query': {
      const result = await handleOf(message.tx).query(message.sql, message.params);
      return { rows: result.rows };
    }
    case 'exec':
      await handleOf(message.tx).exec(message.sql);
      return {};
    case 'begin':
      return begin();
    case 'end':
      return end(message.tx, message.commit);
    case 'close':
      if (!pglite.closed) await pglite.close();
      return {};
    default:
      throw new Error(`unknown request ${String(message.op)}`);
  }
}

parentPort.on('message', (message) => {
  handle(message).then(
    (result) => parentPort.postMessage({ id: message.id, ok: true, ...result }),
    (err) => parentPort.postMessage({ id: message.id, ok: false, error: errorOf(err) }),
  );
});

pglite.waitReady.then(
  () => parentPort.postMessage({ id: 0, ok: true }),
  (err) => parentPort.postMessage({ id: 0, ok: false, error: errorOf(err) }),
);
