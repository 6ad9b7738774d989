/**
 * The store's service style on this register (core/settings.ts `serviceStyle`): retail (the counter), restaurant (the
 * floor plan and open checks) or both. Learnt from `GET /api/sync/registers/{id}` at start and when back online
 * (boot.ts) and kept in localStorage for offline starts; `retail` until known, so a store is unchanged until it opts in.
 */
import { BehaviorSubject } from 'rxjs';
import { SERVICE_STYLES, type ServiceStyle } from '../../../../core/index.ts';

const KEY = 'register.serviceStyle';

function stored(): ServiceStyle {
  const value = typeof localStorage === 'undefined' ? null : localStorage.getItem(KEY);
  return (SERVICE_STYLES as readonly string[]).includes(value ?? '') ? (value as ServiceStyle) : 'retail';
}

/** The service style as last known (retail until known). */
export const serviceStyle$ = new BehaviorSubject<ServiceStyle>(stored());

/** Keeps the store's service style (from the server) for offline use, and tells the screens. Unknown values are ignored. */
export function rememberServiceStyle(style: unknown): void {
  if (typeof style !== 'string' || !(SERVICE_STYLES as readonly string[]).includes(style)) return;
  localStorage.setItem(KEY, style);
  if (serviceStyle$.value !== style) serviceStyle$.next(style as ServiceStyle);
}
