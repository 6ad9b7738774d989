/**
 * Cutting a push into requests that the sync server accepts: at most {@link MAX_PUSH_ROWS} rows and
 * {@link MAX_PUSH_BATCH_BYTES} bytes of JSON each, well under the server's 1 MiB body limit (`BODY_LIMIT_BYTES`,
 * HTTP 413 above it). A row that alone exceeds {@link MAX_PUSH_DOCUMENT_BYTES} can never be sent: it is set apart so
 * the register keeps it (refused locally, with a reason for the cashier) and nothing behind it waits.
 */

/** The sync server's request body limit in bytes (sync-server `BODY_LIMIT_BYTES`; answers 413 above it). */
export const SERVER_BODY_LIMIT_BYTES = 1024 * 1024;
/** Rows per push request (the server accepts up to 500). */
export const MAX_PUSH_ROWS = 50;
/** Target size of one push request body, in bytes of UTF-8 JSON: a quarter of the server's limit. */
export const MAX_PUSH_BATCH_BYTES = 256 * 1024;
/** Largest single row ever sent, in bytes of UTF-8 JSON (its own request); larger rows are refused locally. */
export const MAX_PUSH_DOCUMENT_BYTES = SERVER_BODY_LIMIT_BYTES - 64 * 1024;

export interface PushChunk<Row> {
  rows: Row[];
  /** The request body: the rows as a JSON array. */
  body: string;
  /** `body` in bytes of UTF-8. */
  bytes: number;
}

export interface ChunkedPush<Row> {
  chunks: PushChunk<Row>[];
  /** Rows that alone exceed `maxDocumentBytes`, with their size in bytes. */
  oversized: { row: Row; bytes: number }[];
}

const encoder = new TextEncoder();

/** Bytes of `text` in UTF-8. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/**
 * Splits `rows` (in order) into request bodies of at most `maxRows` rows and `maxBytes` bytes, except that a row
 * larger than `maxBytes` but within `maxDocumentBytes` travels alone; rows above `maxDocumentBytes` are returned in
 * `oversized` and sent nowhere.
 */
export function chunkPushRows<Row>(
  rows: readonly Row[],
  { maxRows = MAX_PUSH_ROWS, maxBytes = MAX_PUSH_BATCH_BYTES, maxDocumentBytes = MAX_PUSH_DOCUMENT_BYTES } = {},
): ChunkedPush<Row> {
  const chunks: PushChunk<Row>[] = [];
  const oversized: { row: Row; bytes: number }[] = [];
  let current: { rows: Row[]; parts: string[]; bytes: number } = { rows: [], parts: [], bytes: 2 };
  const flush = () => {
    if (current.rows.length === 0) return;
    chunks.push({ rows: current.rows, body: `[${current.parts.join(',')}]`, bytes: current.bytes });
    current = { rows: [], parts: [], bytes: 2 };
  };
  for (const row of rows) {
    const json = JSON.stringify(row);
    const bytes = utf8Bytes(json);
    if (bytes + 2 > maxDocumentBytes) {
      oversized.push({ row, bytes });
      continue;
    }
    const added = bytes + (current.rows.length > 0 ? 1 : 0);
    if (current.rows.length > 0 && (current.rows.length >= maxRows || current.bytes + added > maxBytes)) flush();
    current.bytes += bytes + (current.rows.length > 0 ? 1 : 0);
    current.rows.push(row);
    current.parts.push(json);
  }
  flush();
  return { chunks, oversized };
}

/** `bytes` for people: "812 KiB", "1.4 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
