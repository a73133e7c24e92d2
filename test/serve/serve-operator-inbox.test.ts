// Issue 45: GET /operator/requests — the open requests a principal's roles may answer, per tenant.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  type CheckpointStore,
  FileCheckpointStore,
  MemoryCheckpointStore,
  type Principal,
  scriptedText,
  serve,
  type ServeHandler,
} from '../../src/index.js';
import { refundCall, supervisedDesk } from '../independent/operators/desk.js';

const PRINCIPALS: Record<string, Principal> = {
  c1: { id: 'c1', tenant: 'acme' },
  c2: { id: 'c2', tenant: 'acme' },
  g1: { id: 'g1', tenant: 'globex' },
  sup: { id: 'sup-1', tenant: 'acme', roles: ['supervisor', 'operator'] },
  supG: { id: 'sup-2', tenant: 'globex', roles: ['supervisor'] },
};

function caller(handler: ServeHandler, who: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await handler.fetch(
      new Request(`http://desk.test${path}`, {
        method,
        headers: {
          authorization: `Bearer ${who}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
}

type Page = {
  requests: { sessionId: string; request: { calls: { id: string }[] } }[];
  cursor?: string;
};
const ids = (page: Record<string, unknown>) =>
  (page as Page).requests.map((r) => `${r.sessionId}:${r.request.calls[0]?.id}`);

async function inboxOn(store: CheckpointStore | undefined) {
  const script = [
    refundCall('k1', 'INV-1'),
    refundCall('k2', 'INV-2'),
    refundCall('k3', 'INV-3'),
    refundCall('k4', 'INV-4'),
    scriptedText('Refunded.'),
  ];
  const { workflow, runs } = supervisedDesk(store, script);
  const handler = serve(workflow, {
    authenticate: (r) =>
      PRINCIPALS[/^Bearer (\w+)$/.exec(r.headers.get('authorization') ?? '')?.[1] ?? ''] ?? null,
  });
  for (const [who, id] of [
    ['c1', 'a1'],
    ['c2', 'a2'],
    ['c1', 'a3'],
    ['g1', 'b1'],
  ] as const) {
    const customer = caller(handler, who);
    expect((await customer('POST', '/sessions', { id })).status).toBe(201);
    expect((await customer('POST', `/sessions/${id}/runs`, { input: 'Refund' })).status).toBe(200);
  }
  await caller(handler, 'c2')('POST', '/sessions', { id: 'a4' }); // no request open
  return { handler, runs };
}

describe('GET /operator/requests', () => {
  for (const kind of ['no store', 'memory', 'file'] as const) {
    it(`pages the tenant's open requests oldest first, each once while they close (${kind})`, async () => {
      const dir = kind === 'file' ? await mkdtemp(join(tmpdir(), 'baton-inbox-')) : undefined;
      try {
        const store =
          kind === 'memory'
            ? new MemoryCheckpointStore()
            : dir === undefined
              ? undefined
              : new FileCheckpointStore(dir);
        const { handler, runs } = await inboxOn(store);
        const sup = caller(handler, 'sup');
        const all = await sup('GET', '/operator/requests');
        expect(ids(all.json)).toEqual(['a1:k1', 'a2:k2', 'a3:k3']);
        expect(all.json.cursor).toBeUndefined();
        expect((all.json as Page).requests[0]).toMatchObject({
          request: { kind: 'approval', waitingFor: ['supervisor'] },
          since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        });

        const first = await sup('GET', '/operator/requests?limit=2');
        expect(ids(first.json)).toEqual(['a1:k1', 'a2:k2']);
        // The first request closes between the pages: the next page starts after the cursor.
        const decided = await sup('POST', '/sessions/a1/runs', {
          decisions: [{ callId: 'k1', approve: true }],
        });
        expect(decided.status).toBe(200);
        expect(runs).toEqual(['INV-1']);
        const second = await sup(
          'GET',
          `/operator/requests?limit=2&cursor=${String(first.json.cursor)}`,
        );
        expect(ids(second.json)).toEqual(['a3:k3']);
        expect(second.json.cursor).toBeUndefined();
        expect(ids((await sup('GET', '/operator/requests')).json)).toEqual(['a2:k2', 'a3:k3']);

        expect(ids((await caller(handler, 'supG')('GET', '/operator/requests')).json)).toEqual([
          'b1:k4',
        ]);
        expect(ids((await caller(handler, 'c1')('GET', '/operator/requests')).json)).toEqual([]);
        expect(ids((await sup('GET', '/operator/requests?role=operator')).json)).toEqual([]);
        expect((await sup('GET', '/operator/requests?cursor=nope')).status).toBe(400);
      } finally {
        if (dir !== undefined) await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
