/**
 * A parameterised `WHERE` clause built condition by condition, so list queries never splice values into SQL.
 * Each `?` in a condition takes the next value, in order, as `$n`; a value used several times is bound once with
 * {@link SqlFilter.param} and its placeholder written where needed.
 *
 *     const f = new SqlFilter(['merchant_id = ?'], [merchantId]);
 *     if (q.status) f.add('state = ?', q.status);
 *     const limit = f.param(q.limit + 1);
 *     db.query(`SELECT … WHERE ${f.where} ORDER BY id LIMIT ${limit}`, f.params);
 *
 * @throws Error when a condition's `?` count differs from the number of values given (a programming error).
 */
export class SqlFilter {
  readonly params: unknown[] = [];
  private readonly conditions: string[] = [];

  constructor(conditions: readonly string[] = [], values: readonly unknown[] = []) {
    const sql = conditions.join(' AND ');
    if (sql) this.add(sql, ...values);
  }

  /** Adds `condition` (ANDed with the others), binding one value per `?`. Returns this filter. */
  add(condition: string, ...values: unknown[]): this {
    const parts = condition.split('?');
    if (parts.length - 1 !== values.length) throw new Error(`SqlFilter: ${parts.length - 1} placeholders, ${values.length} values in "${condition}"`);
    let sql = parts[0]!;
    values.forEach((value, i) => {
      sql += this.param(value) + parts[i + 1]!;
    });
    this.conditions.push(sql);
    return this;
  }

  /** Binds `value` and returns its placeholder (`$n`), for a value used several times or outside WHERE (LIMIT). */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** The conditions joined with AND (`TRUE` when there are none). */
  get where(): string {
    return this.conditions.length > 0 ? this.conditions.join(' AND ') : 'TRUE';
  }
}

/**
 * The `ILIKE`/`LIKE` pattern "contains `text`": `%text%` with `\`, `%` and `_` in `text` escaped (PostgreSQL's
 * default escape character), so a search for "50%" finds "50%" and not "500".
 */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
