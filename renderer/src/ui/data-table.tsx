import { Fragment, type ReactNode } from 'react';

/** One column of a {@link DataTable}. */
export interface Column<Row> {
  /** Names the column among the others (React key; the foot rows' `cells` refer to it). */
  key: string;
  /** The header text (`<th scope="col">`). */
  header: string;
  /** Keep the header for screen readers only (a bar chart or an actions column). */
  hideHeader?: boolean;
  /** The cell of one row; omitted when the table draws its rows with `renderRow`. */
  cell?: (row: Row) => ReactNode;
  /** Right-aligned figures (money, counts): `numeric` class on the header and every cell. */
  numeric?: boolean;
  /** Another class for the header and the cells (e.g. `bo-bar-cell`, `bo-actions`). */
  className?: string;
  /** `data-testid` of each body cell of this column. */
  cellTestId?: string;
}

/**
 * A row of the table's foot: `label` (a `<th scope="row">`) spans every column before the first one `cells` names;
 * then one cell per remaining column, empty where `cells` has nothing.
 */
export interface FootRow {
  key: string;
  label: ReactNode;
  /** Content by column key. */
  cells: Record<string, ReactNode>;
  /** `data-testid` by column key. */
  testIds?: Record<string, string>;
}

/** Attributes of a body row (`data-testid`, `data-*`), spread on its `<tr>`. */
export type RowAttributes = Record<`data-${string}`, string | number | undefined>;

export interface DataTableProps<Row> {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  /** The React key of a row (its id). */
  rowKey: (row: Row) => string;
  /** `data-testid` and other data attributes of a row's `<tr>`. */
  rowAttributes?: (row: Row) => RowAttributes;
  /**
   * Draws a whole `<tr>` for rows that keep their own state (confirm buttons, inline forms); the columns then give only
   * the header. Must render one cell per column.
   */
  renderRow?: (row: Row) => ReactNode;
  /** Shown instead of the table when there are no rows (a `<p>`); without it an empty table is drawn. */
  emptyText?: ReactNode;
  /** Class of the empty-state paragraph (default `bo-empty`). */
  emptyClassName?: string;
  emptyTestId?: string;
  /** Names the table (`<caption>`); `captionHidden` keeps it for screen readers only. */
  caption?: string;
  captionHidden?: boolean;
  /** Total rows under the body (`<tfoot>`). */
  foot?: readonly FootRow[];
  /** The table's `data-testid`. */
  testId?: string;
  /** The table's class (default `orders-table bo-table`). */
  className?: string;
}

function classes(...names: (string | false | undefined)[]): string | undefined {
  const joined = names.filter(Boolean).join(' ');
  return joined || undefined;
}

/**
 * The one table of the app: header cells with `scope="col"`, body rows from `columns` (or `renderRow`), optional foot
 * rows, a caption for screen readers, and an empty-state paragraph instead of a table without rows.
 */
export function DataTable<Row>(props: DataTableProps<Row>) {
  const { columns, rows, rowKey, rowAttributes, renderRow, foot } = props;
  if (rows.length === 0 && props.emptyText !== undefined) {
    return (
      <p className={props.emptyClassName ?? 'bo-empty'} data-testid={props.emptyTestId}>
        {props.emptyText}
      </p>
    );
  }
  return (
    <table className={props.className ?? 'orders-table bo-table'} data-testid={props.testId}>
      {props.caption ? <caption className={props.captionHidden ? 'visually-hidden' : undefined}>{props.caption}</caption> : null}
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.key} scope="col" className={classes(column.numeric && 'numeric', column.className)}>
              {column.hideHeader ? <span className="visually-hidden">{column.header}</span> : column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) =>
          renderRow ? (
            <Fragment key={rowKey(row)}>{renderRow(row)}</Fragment>
          ) : (
            <tr key={rowKey(row)} {...rowAttributes?.(row)}>
              {columns.map((column) => (
                <td key={column.key} className={classes(column.numeric && 'numeric', column.className)} data-testid={column.cellTestId}>
                  {column.cell?.(row)}
                </td>
              ))}
            </tr>
          ),
        )}
      </tbody>
      {foot && foot.length > 0 ? (
        <tfoot>
          {foot.map((footRow) => {
            const first = columns.findIndex((column) => column.key in footRow.cells);
            const span = first < 0 ? columns.length : Math.max(first, 1);
            return (
              <tr key={footRow.key}>
                <th scope="row" colSpan={span > 1 ? span : undefined}>
                  {footRow.label}
                </th>
                {columns.slice(span).map((column) => (
                  <td key={column.key} className={column.key in footRow.cells && column.numeric ? 'numeric' : undefined} data-testid={footRow.testIds?.[column.key]}>
                    {footRow.cells[column.key]}
                  </td>
                ))}
              </tr>
            );
          })}
        </tfoot>
      ) : null}
    </table>
  );
}

