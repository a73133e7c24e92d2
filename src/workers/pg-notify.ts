import { ConfigError } from '../errors.js';
import { isRecord } from '../unknown-value.js';
import { hasFunctions, missingPeer } from './dispatcher.js';

/** The part of `pg` the announcements use. */
export interface PgClient {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  on(event: 'notification', listener: (message: { payload?: string }) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  end(): Promise<void>;
}
export interface PgModule {
  Client: new (options: object) => PgClient;
  Pool: new (options: object) => Omit<PgClient, 'connect'>;
}

/** A client of `pg` that LISTENs on `channel`, calling `listener` with each payload. */
export async function listeningClient(
  connectionString: string,
  channel: string,
  listener: (payload: string) => void,
): Promise<PgClient> {
  const client = new (await loadPg()).Client({ connectionString });
  client.on('error', () => {});
  client.on('notification', (message) => {
    if (message.payload !== undefined) listener(message.payload);
  });
  await client.connect();
  await client.query(`LISTEN ${channel}`);
  return client;
}

/** Loads the optional peer `pg`. @throws ConfigError saying what to install. */
export async function loadPg(): Promise<PgModule> {
  try {
    const pg: unknown = await import('pg');
    const module = isRecord(pg) && isRecord(pg.default) ? pg.default : pg;
    if (hasFunctions<PgModule>(module, ['Client', 'Pool'])) return module;
  } catch (error) {
    throw missingPeer('pg', 'PgBossDispatcher', error);
  }
  throw new ConfigError('PgBossDispatcher: the installed "pg" has no Client and Pool.');
}
