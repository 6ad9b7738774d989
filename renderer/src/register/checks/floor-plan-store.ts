/**
 * The store's floor plan on the register (`GET /api/pos/floor-plan`, core/floor-plan.ts): read from the server when
 * the floor opens and kept in localStorage, so the floor opens on the last plan known while the server is away.
 */
import { useEffect, useState } from 'react';
import { floorPlanSchema, type FloorPlan } from '../../../../core/index.ts';
import { REGISTER_SCHEMA_VERSION, type RegisterSession } from '../../common/session.ts';

const key = (merchantId: string) => `register.floorPlan.${merchantId}`;

function storedPlan(merchantId: string): FloorPlan | undefined {
  try {
    const parsed = floorPlanSchema.safeParse(JSON.parse(localStorage.getItem(key(merchantId)) ?? 'null'));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The floor plan: the kept copy at once, then the server's. `plan` is undefined until one is known; `offline` when the
 * server could not be asked (the kept copy, if any, is shown).
 */
export function useFloorPlan(session: RegisterSession): { plan: FloorPlan | undefined; offline: boolean } {
  const [plan, setPlan] = useState(() => storedPlan(session.merchantId));
  const [offline, setOffline] = useState(false);
  useEffect(() => {
    let live = true;
    fetch('/api/pos/floor-plan', {
      headers: { authorization: `Bearer ${session.registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
    })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const fetched = floorPlanSchema.parse(await response.json());
        localStorage.setItem(key(session.merchantId), JSON.stringify(fetched));
        if (live) {
          setPlan(fetched);
          setOffline(false);
        }
      })
      .catch(() => live && setOffline(true));
    return () => {
      live = false;
    };
  }, [session.merchantId, session.registerToken]);
  return { plan, offline };
}
