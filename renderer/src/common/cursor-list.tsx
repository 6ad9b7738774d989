/**
 * The back office's list pages (orders, customers, catalog) in one place: a cursor-paged `GET` list held by TanStack
 * Query (`useInfiniteQuery`), so caching, "Show more", retries and refetching after a change are the library's, not
 * each view's. A page of the API is `{ data, nextCursor }` (core `pageSchema`); rows are told apart by `id`.
 *
 * The query key is the list's name, its filters and the signed-in staff member: another person signing in on the
 * same register never sees the previous one's cached list. A new filter keeps the old rows on screen ("Show more"
 * hidden) until its first page arrives, so typing a search does not flash "Loading…"; a list is not kept once left.
 */
import { keepPreviousData, QueryClient, useInfiniteQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError } from './back-office-api.ts';
import { LoadError } from './back-office-kit.tsx';
import { staffSession$ } from './staff-session.ts';
import { useObservable } from '../ui/hooks.ts';

/**
 * The app's query client. Retries: a failure the server answered with a 4xx (bad filter, signed out, not allowed) is
 * not retried; a network failure or a 5xx is retried once. No refetch on window focus: a list a manager is reading
 * does not reorder under them; it refreshes on a change made here, on Refresh, and when the page is opened again.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failures, err) => failures < 1 && !(err instanceof ApiError && err.status < 500),
        refetchOnWindowFocus: false,
      },
    },
  });
}

/** One page of a list endpoint: its rows and the cursor of the next page (`null` on the last). */
export interface CursorPage<T> {
  data: T[];
  nextCursor: string | null;
}

export interface CursorList<T, P extends CursorPage<T>> {
  /** The loaded rows, pages in order, each id once; `undefined` until the first page arrives. */
  rows: T[] | undefined;
  /** The last page loaded (for what a page carries besides rows, such as the catalog's tax rates). */
  lastPage: P | undefined;
  /** The first page failed (shown in place of the list). */
  error: unknown;
  /** "Show more" failed (shown under the list; the loaded rows stay). */
  moreError: unknown;
  /** A next page exists and the rows shown answer the current filters. */
  hasMore: boolean;
  /** A page is on its way ("Show more" waits). */
  loadingMore: boolean;
  showMore(): void;
  /** Refetches every loaded page (after a change made here, or on Refresh). */
  refresh(): Promise<void>;
  /** Puts `row` in place of the loaded row with its id, in every cached filter of this list (no request). */
  replace(row: T): void;
}

/**
 * A cursor-paged list. `name` names the list (`'orders'`); `filters` are the values the server filters by (part of
 * the key: a change starts the list over); `fetchPage(cursor)` asks for the first page (`undefined`) or the next.
 */
export function useCursorList<T extends { id: string }, P extends CursorPage<T>>(
  name: string,
  filters: readonly unknown[],
  fetchPage: (cursor: string | undefined) => Promise<P>,
): CursorList<T, P> {
  const staff = useObservable(staffSession$, staffSession$.value);
  const client = useQueryClient();
  const queryKey = ['backoffice', staff?.staff.id ?? '', name, ...filters];
  const query = useInfiniteQuery<P, Error, InfiniteData<P, string | undefined>, readonly unknown[], string | undefined>({
    queryKey,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
    // A list left (another filter, another section) is dropped: coming back starts it over at its first page, as
    // fresh as the server, instead of showing pages loaded minutes ago.
    gcTime: 0,
  });
  const pages = query.data?.pages;
  const rows = useMemo(() => {
    if (!pages) return undefined;
    const seen = new Set<string>();
    const out: T[] = [];
    for (const page of pages) {
      for (const row of page.data) {
        if (seen.has(row.id)) continue;
        seen.add(row.id);
        out.push(row);
      }
    }
    return out;
  }, [pages]);
  const firstFailed = query.isError && !query.isFetchNextPageError;
  // "Show more" asked while the loaded pages are being fetched again (or a filter's first page is on its way) is kept,
  // for this list's key only, and carried out once that fetch is over: a click is never dropped.
  const keyText = JSON.stringify(queryKey);
  const [moreWantedFor, setMoreWantedFor] = useState<string | null>(null);
  const canFetchMore = query.hasNextPage && !query.isFetching && !query.isPlaceholderData;
  const { fetchNextPage } = query;
  useEffect(() => {
    if (moreWantedFor === null || query.isFetching || query.isPlaceholderData) return;
    setMoreWantedFor(null);
    if (moreWantedFor === keyText && query.hasNextPage) void fetchNextPage();
  }, [moreWantedFor, keyText, query.isFetching, query.isPlaceholderData, query.hasNextPage, fetchNextPage]);
  return {
    rows: firstFailed ? undefined : rows,
    lastPage: pages?.[pages.length - 1],
    error: firstFailed ? query.error : undefined,
    moreError: query.isFetchNextPageError ? query.error : undefined,
    hasMore: query.hasNextPage && !query.isPlaceholderData,
    // While the loaded pages are being fetched again, the next page waits (asked now, it would cancel that refetch):
    // the click is kept and carried out after it.
    loadingMore: query.isFetching || moreWantedFor === keyText,
    showMore: () => {
      if (canFetchMore) void fetchNextPage();
      // A second click while the next page is on its way asks for nothing more.
      else if (!query.isFetchingNextPage) setMoreWantedFor(keyText);
    },
    refresh: () => client.invalidateQueries({ queryKey: ['backoffice', staff?.staff.id ?? '', name] }),
    replace: (row) =>
      client.setQueriesData<InfiniteData<P, string | undefined>>({ queryKey: ['backoffice', staff?.staff.id ?? '', name] }, (data) =>
        data ? { ...data, pages: data.pages.map((page) => ({ ...page, data: page.data.map((r) => (r.id === row.id ? row : r)) })) } : data,
      ),
  };
}

/** `value`, `delayMs` (ms) after it last changed: a search box asks the server once typing pauses. */
export function useDebounced<T>(value: T, delayMs = 200): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

/**
 * The frame of a list page below its toolbar: the first page's error, "Loading …" until it arrives, the table
 * (`children`, given the rows), then "Show more" with its own error.
 */
export function CursorListBody<T, P extends CursorPage<T>>({
  list,
  what,
  loadingText,
  moreLabel,
  moreTestId,
  loadingTestId,
  children,
}: {
  list: CursorList<T, P>;
  /** What the list holds, capitalised ("Orders"): the error texts use it. */
  what: string;
  /** Shown until the first page arrives ("Loading orders…"). */
  loadingText: string;
  moreLabel: string;
  moreTestId?: string;
  loadingTestId?: string;
  children: (rows: T[]) => ReactNode;
}) {
  return (
    <>
      {list.error ? <LoadError error={list.error} what={what} /> : null}
      {!list.rows && !list.error ? (
        <p className="muted" role="status" data-testid={loadingTestId}>
          {loadingText}
        </p>
      ) : null}
      {list.rows ? children(list.rows) : null}
      {list.moreError ? <LoadError error={list.moreError} what={`More ${what.toLowerCase()}`} /> : null}
      {list.rows && list.hasMore ? (
        // Not disabled while loading: a click then is kept (useCursorList `showMore`), never lost to a refetch that
        // started between the pointer going down and the click.
        <button type="button" className="button bo-align-start" onClick={list.showMore} aria-busy={list.loadingMore} data-testid={moreTestId}>
          {list.loadingMore ? 'Loading…' : moreLabel}
        </button>
      ) : null}
    </>
  );
}
