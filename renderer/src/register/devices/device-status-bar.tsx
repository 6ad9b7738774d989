import { useEffect, useRef, useState } from 'react';
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
    return state.transport === 'bridge'
      ? `No hardware bridge connected (${state.message ?? state.connection}): cash only.`
      : 'The devices are not available.';
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
  const trouble = useDeviceTrouble(state);
  return (
    <div
      className={isReady ? 'device-bar' : 'device-bar device-bar-down'}
      data-testid="device-state"
      data-connection={state.connection}
      data-transport={state.transport}
    >
      <span className="visually-hidden" role="status" data-testid="device-announcement">
        {trouble}
      </span>
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

/** Device states a cashier must act on (the rest — ready, busy, simulated — come and go with every job). */
const TROUBLE = new Set<DeviceOverview['status']['state']>(['offline', 'paper_out', 'cover_open', 'error']);

/** Each device's state now (none while the bridge is not ready). */
function statesOf(state: DeviceClientState): Map<string, string> {
  return new Map(state.connection === 'ready' ? state.devices.map((d) => [d.device, d.status.state] as const) : []);
}

/**
 * What the strip's live region says: only a change a cashier must act on — a device going into trouble ("Printer ·
 * out of paper"), or the bridge lost after it was connected. A printer going busy and ready again with every receipt
 * is shown, not announced (the strip itself is not a live region). A strip that mounts (the receipt's, the Devices
 * view's) starts from the states as they are, so a trouble already told is not told again with each receipt; the text
 * is emptied once nothing is in trouble, so the next trouble — even the same one — is told again.
 */
function useDeviceTrouble(state: DeviceClientState): string {
  const [text, setText] = useState('');
  const previous = useRef<{ connection: DeviceClientState['connection']; states: Map<string, string> } | undefined>(undefined);
  previous.current ??= { connection: state.connection, states: statesOf(state) };
  useEffect(() => {
    const before = previous.current!;
    const states = statesOf(state);
    const news: string[] = [];
    if (before.connection === 'ready' && state.connection !== 'ready') news.push('Hardware bridge disconnected — cash only');
    if (state.connection === 'ready') {
      for (const device of state.devices) {
        if (TROUBLE.has(device.status.state) && before.states.get(device.device) !== device.status.state) news.push(deviceLabel(device));
      }
    }
    previous.current = { connection: state.connection, states };
    if (news.length > 0) setText(news.join('. '));
    else if (state.connection === 'ready' && !state.devices.some((d) => TROUBLE.has(d.status.state))) setText('');
  }, [state]);
  return text;
}
