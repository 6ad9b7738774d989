/**
 * The store's kitchen routing on this register (stations; items and categories to stations; the default station;
 * items not prepared): learnt from `GET /api/register/kitchen` at start and when back online (boot.ts) and kept in
 * localStorage, so a register cut off from the server still prints each station's tickets. Until the store sets up
 * stations (Back office → Kitchen), every prepared item goes to one station, the kitchen (`DEFAULT_KITCHEN_ROUTING`).
 */
import { registerKitchenRoutingSchema, routingOfSetup, type KitchenRouting } from '../../../../core/index.ts';
import { DEFAULT_KITCHEN_ROUTING } from './kitchen-send.ts';

const KEY = 'register.kitchenRouting';

/**
 * The routing to make kitchen tickets with: the store's as last read, or `DEFAULT_KITCHEN_ROUTING` when it has no
 * stations (never set up, or nothing stored on this register yet).
 */
export function currentKitchenRouting(): KitchenRouting {
  const raw = typeof localStorage === 'undefined' ? null : localStorage.getItem(KEY);
  if (raw === null) return DEFAULT_KITCHEN_ROUTING;
  try {
    const parsed = registerKitchenRoutingSchema.safeParse(JSON.parse(raw));
    return parsed.success && parsed.data.stations.length > 0 ? routingOfSetup(parsed.data) : DEFAULT_KITCHEN_ROUTING;
  } catch {
    return DEFAULT_KITCHEN_ROUTING;
  }
}

/**
 * Reads the store's routing from the server and keeps it. Offline, a refusal or an answer that does not parse keep
 * the routing stored before (nothing thrown: the register prints with what it has).
 * @param token the register's bearer token
 */
export async function refreshKitchenRouting(token: string): Promise<void> {
  try {
    const response = await fetch('/api/register/kitchen', { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) return;
    const parsed = registerKitchenRoutingSchema.safeParse(await response.json());
    if (parsed.success) localStorage.setItem(KEY, JSON.stringify(parsed.data));
  } catch {
    // Offline: the next start or online event tries again.
  }
}
