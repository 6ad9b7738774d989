import { createContext, useContext } from 'react';
import type { RegisterDatabase } from './db/database.ts';
import type { RegisterSession } from '../common/session.ts';
import type { SyncEngine } from './sync/replication.ts';

/** What every screen of a paired register needs. */
export interface RegisterContextValue {
  db: RegisterDatabase;
  session: RegisterSession;
  sync: SyncEngine;
}

export const RegisterContext = createContext<RegisterContextValue | undefined>(undefined);

export function useRegister(): RegisterContextValue {
  const value = useContext(RegisterContext);
  if (!value) throw new Error('useRegister outside a paired register');
  return value;
}
