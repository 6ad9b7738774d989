import type { DeviceOverview } from '../../../../core/device-transport.ts';
import type { DeviceClientState } from '../../platform/devices/index.ts';

const NAMES: Record<DeviceOverview['device'], string> = { printer: 'printer', terminal: 'card terminal', checkScanner: 'check scanner' };
const STATES: Record<DeviceOverview['status']['state'], string> = {
  ready: 'ready',
  busy: 'busy',
  offline: 'offline',
  paper_out: 'out of paper',
  cover_open: 'cover open',
  error: 'error',
  simulated: 'simulated',
};

/** "Simulated printer · ready", "Card terminal · offline", … */
export function deviceLabel(device: DeviceOverview): string {
  const name = NAMES[device.device];
  const state = device.status.detail === 'not configured' ? 'not configured' : STATES[device.status.state];
  return device.mode === 'simulator' ? `Simulated ${name} · ${state}` : `${name[0]!.toUpperCase()}${name.slice(1)} · ${state}`;
}

/** Why a device cannot be used now, or undefined when it can. */
export function deviceUnavailable(state: DeviceClientState, kind: DeviceOverview['device']): string | undefined {
  if (state.connection !== 'ready') {
    return state.transport === 'bridge' ? `No hardware bridge connected (${state.message ?? state.connection}): cash only.` : 'The devices are not available.';
  }
  const device = state.devices.find((d) => d.device === kind);
  if (!device || device.mode === 'none') return `No ${NAMES[kind]} is configured on this register (Devices).`;
  return undefined;
}

/**
 * The devices strip of the register: which transport, whether it is connected, and each device's mode and state —
 * a register without devices says so and keeps selling cash-only.
 */
export function DeviceStatusBar({ state }: { state: DeviceClientState }) {
  const isReady = state.connection === 'ready';
  return (
    <div className={isReady ? 'device-bar' : 'device-bar device-bar-down'} data-testid="device-state" data-connection={state.connection} data-transport={state.transport} role="status">
      {isReady ? (
        state.devices.map((device) => (
          <span
            key={device.device}
            className={`device-chip device-chip-${device.status.state}`}
            data-testid={`device-${device.device}`}
            data-mode={device.mode}
            data-state={device.status.state}
            title={device.status.detail ?? device.path ?? ''}
          >
            {deviceLabel(device)}
          </span>
        ))
      ) : (
        <span className="device-chip device-chip-offline" data-testid="device-bridge-down">
          {state.connection === 'connecting'
            ? 'Connecting to the hardware bridge…'
            : state.connection === 'unpaired'
              ? 'No hardware bridge paired — cash only (pair it in Devices)'
              : state.connection === 'refused'
                ? 'The hardware bridge refused this register — cash only (check the pairing token in Devices)'
                : 'No hardware bridge reachable — cash only'}
        </span>
      )}
    </div>
  );
}
