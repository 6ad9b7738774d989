/**
 * Server state of the back office's sections that are not cursor lists (registers, staff, settings, reports, …),
 * held by TanStack Query as the lists are (common/cursor-list.tsx): one query per thing shown, keyed by the signed-in
 * staff member and the section's name, and actions that refetch what they change once they succeed — so no section
 * keeps a copy of the server in `useState` or reloads by hand.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage, type BackOfficeApi } from './back-office-api.ts';
import { useApi } from './back-office-kit.tsx';
import { staffSession$ } from './staff-session.ts';
import { useObservable } from '../ui/hooks.ts';

/** The query key prefix of everything the back office caches for the signed-in staff member. */
function useKeyPrefix(): readonly string[] {
  const staff = useObservable(staffSession$, staffSession$.value);
  return ['backoffice', staff?.staff.id ?? ''];
}

/** What a section shows of one query: its data (`undefined` until it arrives), its error, and a refetch. */
export interface BackOfficeData<T> {
  data: T | undefined;
  /** The request failed (after the client's retry rule): shown in place of the section. */
  error: unknown;
  /** A request is on its way (the first or a refetch). */
  fetching: boolean;
  refresh(): Promise<void>;
}

/** How a read of `useBackOfficeData` starts. */
export interface BackOfficeDataOptions<T> {
  /**
   * What the screen already holds of the thing (the row of the list it was opened from): `data` is this at once for a
   * key read for the first time, instead of `undefined`, and the read still goes out and replaces it when it answers.
   */
  initialData?: T;
  /** `false` sends no read (`data` stays `initialData`, `fetching` false), e.g. while the thing has no id yet. Default `true`. */
  enabled?: boolean;
  /**
   * Reads again this many ms after each answer while it returns a number (e.g. while a message is still queued);
   * `false` stops. Default: no polling.
   */
  refetchInterval?: (data: T | undefined) => number | false;
}

/**
 * One server read of a section: `name` and `args` key it (a change of `args` reads again; another section's `name`
 * never shares its cache), `read(api)` asks the server. Dropped from the cache once no screen shows it, so coming back
 * reads it fresh.
 *
 * @param name the section's name, the first part of the key (`'registers'`); actions invalidate by it
 * @param args what the read depends on besides the signed-in person (filters, an id)
 * @param read the request, with the API client of the signed-in staff member
 * @param options data to show until the read answers, and whether to read at all (`BackOfficeDataOptions`)
 */
export function useBackOfficeData<T>(
  name: string,
  args: readonly unknown[],
  read: (api: BackOfficeApi) => Promise<T>,
  { initialData, enabled = true, refetchInterval }: BackOfficeDataOptions<T> = {},
): BackOfficeData<T> {
  const api = useApi();
  const client = useQueryClient();
  const prefix = useKeyPrefix();
  const query = useQuery({
    queryKey: [...prefix, name, ...args],
    queryFn: () => read(api),
    gcTime: 0,
    initialData,
    enabled,
    ...(refetchInterval ? { refetchInterval: (q: { state: { data: T | undefined } }) => refetchInterval(q.state.data) } : {}),
  });
  return {
    data: query.data,
    error: query.error ?? undefined,
    fetching: query.isFetching,
    refresh: () => client.invalidateQueries({ queryKey: [...prefix, name] }),
  };
}

/** The actions of a section: run one, see one pending, see why the last one failed. */
export interface BackOfficeActions {
  /**
   * Runs `write` with the API client of the signed-in staff member; resolves with its answer once the sections it
   * changes are read again, or with `undefined` when it failed (the failure is in `error`, worded by `describe` when
   * given — a form that shows field errors in place words only what is left for the form as a whole).
   */
  run<R>(write: (api: BackOfficeApi) => Promise<R>, describe?: (err: unknown) => string | undefined): Promise<R | undefined>;
  pending: boolean;
  /** The last action's failure, worded for the screen (the problem's detail and field messages); cleared by the next. */
  error: string | undefined;
}

/**
 * The writes of a section (TanStack Query's `useMutation`): once one succeeds every query of the sections named in
 * `refetches` is read again, so the screen shows what the server now holds — never an edit of the cached copy. A
 * failure never throws into the view: it is kept as `error`, one slot for the section as a person reads it.
 *
 * @param refetches the section names (`useBackOfficeData`'s `name`) whose data these actions change
 */
export function useBackOfficeActions(refetches: readonly string[]): BackOfficeActions {
  const api = useApi();
  const client = useQueryClient();
  const prefix = useKeyPrefix();
  const [error, setError] = useState<string | undefined>();
  const mutation = useMutation({
    mutationFn: (write: (api: BackOfficeApi) => Promise<unknown>) => write(api),
    onSuccess: () => Promise.all(refetches.map((name) => client.invalidateQueries({ queryKey: [...prefix, name] }))),
  });
  return {
    run: async <R>(write: (api: BackOfficeApi) => Promise<R>, describe: (err: unknown) => string | undefined = errorMessage) => {
      setError(undefined);
      try {
        return (await mutation.mutateAsync(write)) as R;
      } catch (err) {
        setError(describe(err));
        return undefined;
      }
    },
    pending: mutation.isPending,
    error,
  };
}
