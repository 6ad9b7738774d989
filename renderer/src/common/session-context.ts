import { createContext, useContext } from 'react';
import type { Observable } from 'rxjs';
import type { RegisterSession } from './session.ts';
import type { SyncStatus } from './sync-status.ts';

/**
 * What the common screens (header, staff sign-in, back office) need of the paired register: its session and its
 * sync status. The register's own screens read the fuller context (database, sync engine) of
 * register/register-context.ts; app.tsx provides both with the same value.
 */
export interface SessionContextValue {
  session: RegisterSession;
  sync: { status$: Observable<SyncStatus> };
}

export const SessionContext = createContext<SessionContextValue | undefined>(undefined);

export function useRegisterSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useRegisterSession outside a paired register');
  return value;
}
