import { Fragment, useCallback, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';

/** Above this many rows, a table drawn from `columns` renders only the rows in (and near) view. */
export const VIRTUAL_ROWS_FROM = 150;
/** Estimated body row height in CSS px (rows are measured once drawn). */
const ESTIMATED_ROW_HEIGHT = 49;

/** The nearest ancestor of `el` that scrolls vertically (the view's scrolling area), or the document's. */
function scrollParent(el: HTMLElement | null): HTMLElement | null {
  for (let node = el?.parentElement ?? null; node; node = node.parentElement) {
    const overflow = getComputedStyle(node).overflowY;
    if (overflow === 'auto' || overflow === 'scroll') return node;
  }
  return (document.scrollingElement as HTMLElement | null) ?? null;
}

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
  // Long tables drawn from `columns` are virtualised (@tanstack/react-virtual): spacer rows stand for the rows out of
  // view. Tables drawn with `renderRow` (rows with their own state) are always drawn whole.
  const isVirtual = !renderRow && rows.length > VIRTUAL_ROWS_FROM;
  const tableRef = useRef<HTMLTableElement>(null);
  const scroller = useRef<HTMLElement | null>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    if (!isVirtual) return;
    scroller.current = scrollParent(tableRef.current);
    const body = tableRef.current?.tBodies[0];
    if (body && scroller.current)
      setScrollMargin(body.getBoundingClientRect().top - scroller.current.getBoundingClientRect().top + scroller.current.scrollTop);
  }, [isVirtual]);
  const getScrollElement = useCallback(() => scroller.current, []);
  const virtualizer = useVirtualizer({
    count: isVirtual ? rows.length : 0,
    getScrollElement,
    estimateSize: () => ESTIMATED_ROW_HEIGHT,
    overscan: 10,
    scrollMargin,
  });
  if (rows.length === 0 && props.emptyText !== undefined) {
    return (
      <p className={props.emptyClassName ?? 'bo-empty'} data-testid={props.emptyTestId}>
        {props.emptyText}
      </p>
    );
  }
  return (
    <table ref={tableRef} className={props.className ?? 'orders-table bo-table'} data-testid={props.testId} data-row-count={rows.length}>
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
        {isVirtual
          ? virtualBody(virtualizer, rows, columns, rowKey, rowAttributes, scrollMargin)
          : rows.map((row) =>
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
                  <td
                    key={column.key}
                    className={column.key in footRow.cells && column.numeric ? 'numeric' : undefined}
                    data-testid={footRow.testIds?.[column.key]}
                  >
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

/** The rows in view of a virtualised table, between two spacer rows holding the height of the rows out of view. */
function virtualBody<Row>(
  virtualizer: ReturnType<typeof useVirtualizer<HTMLElement, Element>>,
  rows: readonly Row[],
  columns: readonly Column<Row>[],
  rowKey: (row: Row) => string,
  rowAttributes: ((row: Row) => RowAttributes) | undefined,
  scrollMargin: number,
): ReactNode {
  const items = virtualizer.getVirtualItems();
  const before = items.length > 0 ? items[0]!.start - scrollMargin : 0;
  const after = items.length > 0 ? virtualizer.getTotalSize() - (items.at(-1)!.end - scrollMargin) : virtualizer.getTotalSize();
  return (
    <>
      {before > 0 ? <tr aria-hidden="true" className="virtual-spacer" style={{ height: before }} /> : null}
      {items.map((item) => {
        const row = rows[item.index]!;
        return (
          <tr key={rowKey(row)} ref={virtualizer.measureElement} data-index={item.index} {...rowAttributes?.(row)}>
            {columns.map((column) => (
              <td key={column.key} className={classes(column.numeric && 'numeric', column.className)} data-testid={column.cellTestId}>
                {column.cell?.(row)}
              </td>
            ))}
          </tr>
        );
      })}
      {after > 0 ? <tr aria-hidden="true" className="virtual-spacer" style={{ height: after }} /> : null}
    </>
  );
}
