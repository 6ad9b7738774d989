/**
 * A TCP proxy on 127.0.0.1 in front of the server under test, so a test can make the server unreachable (every
 * connection cut, nothing listening) and bring it back on the same address without losing the server's state.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: open the register here. */
  baseUrl: string;
  /** Cuts every open connection and stops listening: the server is unreachable. */
  stop(): Promise<void>;
  /** Listens again on the same port; nothing to do when it already listens. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (`http://host:port`) on a free port. */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(Number(targetPort), hostname);
        sockets.add(client);
        sockets.add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        const address = s.address();
        port = typeof address === 'object' && address ? address.port : port;
        server = s;
        resolve();
      });
    });

  const stop = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  const start = async () => {
    if (!server) await listen();
  };
  return { baseUrl: `http://127.0.0.1:${port}`, stop, start, close: stop };
}
