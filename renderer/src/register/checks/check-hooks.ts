/** Who works the floor: the signed-in staff member as the actor of check changes, and staff names by id. */
import { useEffect, useMemo, useState } from 'react';
import { useObservable } from '../../ui/hooks.ts';
import { listOfflineSignInStaff, registerStaff$ } from '../../common/staff-session.ts';
import { useRegister } from '../register-context.ts';
import type { CheckActor } from './check-store.ts';

/** This register and the staff member signed in on it; undefined while nobody is. */
export function useCheckActor(): (CheckActor & { staffName: string }) | undefined {
  const { session } = useRegister();
  const signedIn = useObservable(registerStaff$, registerStaff$.value);
  return useMemo(
    () => (signedIn ? { registerId: session.registerId, staffId: signedIn.staff.id, staffName: signedIn.staff.name } : undefined),
    [session.registerId, signedIn],
  );
}

/** Staff names by id, as far as this register knows them (those who signed in here; the one signed in now). */
export function useStaffNames(): ReadonlyMap<string, string> {
  const signedIn = useObservable(registerStaff$, registerStaff$.value);
  const [known, setKnown] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    let live = true;
    void listOfflineSignInStaff()
      .then(({ staff }) => live && setKnown(new Map(staff.map((s) => [s.id, s.name]))))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return useMemo(() => (signedIn ? new Map([...known, [signedIn.staff.id, signedIn.staff.name]]) : known), [known, signedIn]);
}
