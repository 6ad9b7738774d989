import { useEffect, useState } from 'react';
import { SERIAL_BAUD_RATES, type SerialSettings } from '../../../../core/devices.ts';
import { DEVICE_KINDS, type DeviceConfig, type DeviceKind, type DeviceSettings, type PortInfo } from '../../../../core/device-transport.ts';
import { BridgeTransport, getDeviceClient } from '../../platform/devices/index.ts';
import { DeviceStatusBar, deviceLabel } from '../devices/device-status-bar.tsx';
import { useObservable } from '../../ui/hooks.ts';

const TITLES: Record<DeviceKind, string> = { printer: 'Receipt printer', terminal: 'Card terminal', checkScanner: 'Check scanner' };
const PARITIES: SerialSettings['parity'][] = ['none', 'even', 'odd', 'mark', 'space'];

/**
 * Devices of this register: the connection (Electron, or the web hardware bridge with its address and
 * pairing token), and per device its mode (simulator / serial port / none), port, baud rate and parity, with the
 * port list of the machine and a "Test print" button.
 */
export function DevicesView() {
  const client = getDeviceClient();
  const bridge = client instanceof BridgeTransport ? client : undefined;
  const state = useObservable(client.state$, client.state$.value);
  const [bridgeUrl, setBridgeUrl] = useState(bridge?.bridgeConfig.url ?? '');
  const [token, setToken] = useState(bridge?.bridgeConfig.token ?? '');
  const [settings, setSettings] = useState<DeviceSettings | undefined>();
  const [ports, setPorts] = useState<PortInfo[]>([]);
  const [note, setNote] = useState<{ text: string; isError: boolean } | undefined>();
  const isReady = state.connection === 'ready';
  // The address in use, also when it came from the server's configuration after this view opened.
  useEffect(() => {
    if (bridge) setBridgeUrl(bridge.bridgeConfig.url);
  }, [bridge, state.url]);

  const load = async () => {
    try {
      const [stored, found] = await Promise.all([client.getSettings(), client.listPorts()]);
      setSettings(stored);
      setPorts(found);
    } catch (err) {
      setNote({ text: `Could not read the device settings: ${err instanceof Error ? err.message : String(err)}`, isError: true });
    }
  };

  useEffect(() => {
    if (isReady) void load();
    else setSettings(undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [isReady]);

  const update = (kind: DeviceKind, config: DeviceConfig) => setSettings((current) => (current ? { ...current, [kind]: config } : current));

  const save = async () => {
    if (!settings) return;
    try {
      await client.saveSettings(settings);
      setNote({ text: 'Device settings saved.', isError: false });
      await load();
    } catch (err) {
      setNote({ text: `Not saved: ${err instanceof Error ? err.message : String(err)}`, isError: true });
    }
  };

  const testPrint = async () => {
    try {
      await client.testPrint();
      setNote({ text: 'Test page sent to the printer.', isError: false });
    } catch (err) {
      setNote({ text: `Test print failed: ${err instanceof Error ? err.message : String(err)}`, isError: true });
    }
  };

  return (
    <main className="devices-view" data-testid="devices-view">
      <h1>Devices</h1>
      <DeviceStatusBar state={state} />
      <section className="devices-section" aria-labelledby="devices-connection">
        <h2 id="devices-connection">Connection</h2>
        {!bridge ? (
          <p>This register runs in the desktop app: its devices are driven by the app itself.</p>
        ) : (
          <form
            className="devices-bridge"
            onSubmit={(e) => {
              e.preventDefault();
              bridge.configureBridge({ url: bridgeUrl, token });
            }}
          >
            <p className="muted">
              In a browser the register reaches its devices through the hardware bridge on this computer (started by <code>npm start</code>). Its
              pairing token is in <code>data/device-bridge.json</code>.
            </p>
            <label className="field">
              <span>Bridge address</span>
              <input data-testid="bridge-url" value={bridgeUrl} onChange={(e) => setBridgeUrl(e.target.value)} autoComplete="off" />
            </label>
            <label className="field">
              <span>Pairing token</span>
              <input data-testid="bridge-token" type="password" value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" />
            </label>
            <button type="submit" className="button button-primary" data-testid="bridge-connect">
              Connect
            </button>
          </form>
        )}
      </section>
      {settings ? (
        <section className="devices-section" aria-labelledby="devices-settings">
          <h2 id="devices-settings">Devices of this register</h2>
          <div className="devices-grid">
            {DEVICE_KINDS.map((kind) => {
              const config = settings[kind];
              const overview = state.devices.find((d) => d.device === kind);
              const serial: SerialSettings = config.serial ?? {
                path: ports[0]?.path ?? '',
                baudRate: 9600,
                parity: 'none',
                dataBits: 8,
                stopBits: 1,
              };
              return (
                <fieldset key={kind} className="device-card" data-testid={`device-settings-${kind}`}>
                  <legend>{TITLES[kind]}</legend>
                  {overview ? (
                    <p className="muted">
                      {deviceLabel(overview)}
                      {overview.path ? ` — ${overview.path}` : ''}
                    </p>
                  ) : null}
                  <label className="field">
                    <span>Connection</span>
                    <select
                      data-testid={`device-mode-${kind}`}
                      value={config.mode}
                      onChange={(e) => {
                        const mode = e.target.value as DeviceConfig['mode'];
                        update(kind, mode === 'serial' ? { mode, serial } : { mode });
                      }}
                    >
                      <option value="simulator">Simulator (demo)</option>
                      <option value="serial">Serial port</option>
                      <option value="none">None</option>
                    </select>
                  </label>
                  {config.mode === 'serial' ? (
                    <>
                      <label className="field">
                        <span>Port</span>
                        <input
                          list={`ports-${kind}`}
                          data-testid={`device-port-${kind}`}
                          value={serial.path}
                          onChange={(e) => update(kind, { mode: 'serial', serial: { ...serial, path: e.target.value } })}
                        />
                        <datalist id={`ports-${kind}`}>
                          {ports.map((port) => (
                            <option key={port.path} value={port.path}>
                              {[port.manufacturer, port.source === 'link' ? 'simulator link' : undefined].filter(Boolean).join(' ')}
                            </option>
                          ))}
                        </datalist>
                      </label>
                      <label className="field">
                        <span>Baud rate</span>
                        <select
                          data-testid={`device-baud-${kind}`}
                          value={serial.baudRate}
                          onChange={(e) => update(kind, { mode: 'serial', serial: { ...serial, baudRate: Number(e.target.value) } })}
                        >
                          {SERIAL_BAUD_RATES.map((rate) => (
                            <option key={rate} value={rate}>
                              {rate}
                            </option>
                          ))}
                        </select>
                      </label>
                      <label className="field">
                        <span>Parity</span>
                        <select
                          data-testid={`device-parity-${kind}`}
                          value={serial.parity}
                          onChange={(e) =>
                            update(kind, { mode: 'serial', serial: { ...serial, parity: e.target.value as SerialSettings['parity'] } })
                          }
                        >
                          {PARITIES.map((parity) => (
                            <option key={parity} value={parity}>
                              {parity}
                            </option>
                          ))}
                        </select>
                      </label>
                    </>
                  ) : null}
                  {kind === 'printer' ? (
                    <button type="button" className="button" data-testid="test-print" onClick={() => void testPrint()}>
                      Test print
                    </button>
                  ) : null}
                </fieldset>
              );
            })}
          </div>
          <div className="devices-actions">
            <button type="button" className="button" data-testid="refresh-ports" onClick={() => void load()}>
              Refresh port list ({ports.length})
            </button>
            <button type="button" className="button button-primary" data-testid="save-devices" onClick={() => void save()}>
              Save device settings
            </button>
          </div>
        </section>
      ) : null}
      {note ? (
        <p className={note.isError ? 'form-error' : 'muted'} role={note.isError ? 'alert' : 'status'} data-testid="devices-note">
          {note.text}
        </p>
      ) : null}
    </main>
  );
}
