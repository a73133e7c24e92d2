import type { AddressInfo } from 'node:net';

import { createAdaptorServer } from '@hono/node-server';

import type { ServeHandler } from './serve-options.js';

/** A handler listening on a node:http server. */
export interface Listening {
  /** `http://<host>:<port>` */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections, ends open streams, then closes the handler. */
  close(): Promise<void>;
}

/** Serves `handler` with node:http on `host`:`port` (0: any free port). */
export async function listenOnNode(
  handler: ServeHandler,
  port: number,
  host: string,
): Promise<Listening> {
  const server = createAdaptorServer({ fetch: (request: Request) => handler.fetch(request) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${address.port}`,
    port: address.port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if ('closeAllConnections' in server) server.closeAllConnections();
      await closed;
      await handler.close();
    },
  };
}
