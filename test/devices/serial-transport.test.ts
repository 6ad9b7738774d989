/**
 * The serial transport (electron/devices/serial/transport.ts) over a real socat pseudo-terminal pair: bytes cross the
 * "cable" both ways; a device whose node disappears (a USB adapter pulled) closes as unplugged even when the binding
 * reports no hang-up — here the driver's link is removed while socat, and so the other side, stays up, so only the
 * transport's own presence check can notice.
 */
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createPtyPair, type PtyPair } from '../../electron/devices/serial/pty-pair.ts';
import { SerialConnection, type SerialCloseInfo } from '../../electron/devices/serial/transport.ts';

describe('serial transport over a pseudo-terminal pair', () => {
  let pair: PtyPair | undefined;
  const open: SerialConnection[] = [];
  afterEach(async () => {
    for (const connection of open.splice(0)) await connection.close();
    await pair?.close();
  });

  const connect = async (path: string) => {
    const connection = await SerialConnection.open({ path, baudRate: 115200 });
    open.push(connection);
    return connection;
  };

  it('moves bytes both ways', async () => {
    pair = await createPtyPair();
    const device = await connect(pair.devicePath);
    const simulator = await connect(pair.simulatorPath);
    const received = new Promise<string>((resolve) => simulator.once('data', (chunk) => resolve(chunk.toString('ascii'))));
    await device.write(Buffer.from('PING\r\n', 'ascii'));
    expect(await received).toBe('PING\r\n');
  });

  it('closes as unplugged when its device node is gone, though the other side is still up', async () => {
    pair = await createPtyPair();
    const device = await connect(pair.devicePath);
    await connect(pair.simulatorPath);
    const closed = new Promise<SerialCloseInfo>((resolve) => device.once('close', resolve));
    await rm(pair.devicePath);
    const info = await closed;
    expect(info.unexpected).toBe(true);
    expect(info.error?.message).toContain('is gone');
    expect(device.isOpen).toBe(false);
    await expect(device.write(Buffer.from('x'))).rejects.toMatchObject({ code: 'port_closed' });
  });

  it('closes as asked (not unplugged) on close(), once', async () => {
    pair = await createPtyPair();
    const device = await connect(pair.devicePath);
    const events: SerialCloseInfo[] = [];
    device.on('close', (info) => events.push(info));
    await device.close();
    await device.close();
    await new Promise((resolve) => setTimeout(resolve, 700)); // past a presence check
    expect(events).toEqual([{ unexpected: false }]);
  });
});
