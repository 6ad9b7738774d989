import { BridgeTransport, getDeviceClient } from '../../platform/devices/index.ts';
import { REGISTER_SCHEMA_VERSION, type RegisterSession } from '../../common/session.ts';

/**
 * Asks the server for the hardware bridge address it was started with (`GET /api/register/device-bridge`, the
 * server's `BRIDGE_PORT`) and points the bridge client at it, unless the cashier set an address in Devices. Offline,
 * or an older server without the route: nothing changes (the stored or default address stays).
 */
export async function learnBridgeAddress(session: RegisterSession): Promise<void> {
  const client = getDeviceClient();
  if (!(client instanceof BridgeTransport)) return;
  try {
    const response = await fetch('/api/register/device-bridge', {
      headers: { authorization: `Bearer ${session.registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
    });
    if (!response.ok) return;
    const { url } = (await response.json()) as { url?: unknown };
    if (typeof url === 'string') client.useServerBridgeUrl(url);
  } catch {
    // Offline: the stored or default address stays.
  }
}
