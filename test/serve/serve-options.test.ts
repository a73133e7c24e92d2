import { describe, expect, it } from 'vitest';

import { ConfigError, serve } from '../../src/index.js';
import { serveDesk } from '../support/serve-desk.js';

const { workflow } = serveDesk();
const request = (path: string, init: RequestInit = {}) =>
  new Request(`http://desk.local${path}`, {
    ...init,
    headers: { authorization: 'Bearer t', ...init.headers },
  });

describe('serve(): options', () => {
  it.each([
    [
      {},
      'serve(): every route but /healthz needs a principal: give `token` (clients send `Authorization: Bearer <token>`) or `authenticate`.',
    ],
    [{ token: '' }, 'serve(): `token` must be a non-empty string.'],
    [{ token: 't', maxBodyBytes: 0 }, 'serve(): `maxBodyBytes` must be a positive integer, got 0.'],
    [
      { token: 't', busy: 'queue' },
      'serve(): `busy` must be "reject", "enqueue" or "interrupt", got "queue".',
    ],
    [
      { token: 't', basePath: 'api/' },
      'serve(): `basePath` must be a path like "/api" (no trailing slash), got "api/".',
    ],
    [
      { token: 't', dispatcher: {} },
      'serve(): `dispatcher` must be a PgBossDispatcher or a BullMQDispatcher.',
    ],
  ])('refuses %j', (options, message) => {
    let thrown: unknown;
    try {
      serve(workflow, options as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).message).toBe(message);
  });

  it('refuses something that is not a workflow', () => {
    expect(() => serve({} as never, { token: 't' })).toThrow(ConfigError);
  });

  it('serves under basePath, e.g. a Next.js catch-all route at app/api/[...baton]/route.ts', async () => {
    const handler = serve(serveDesk().workflow, { token: 't', basePath: '/api' });
    expect((await handler.fetch(request('/api/healthz'))).status).toBe(200);
    const created = await handler.fetch(
      request('/api/sessions', { method: 'POST', body: '{"id":"n1"}' }),
    );
    expect([created.status, await created.json()]).toEqual([201, { id: 'n1' }]);
    expect((await handler.fetch(request('/api/sessions/n1'))).status).toBe(200);
    expect((await handler.fetch(request('/sessions/n1'))).status).toBe(404);
    await handler.close();
  });

  it('serves a page at / without authentication when given one', async () => {
    const handler = serve(serveDesk().workflow, {
      token: 't',
      page: '<!doctype html><title>desk</title>',
    });
    const page = await handler.fetch(new Request('http://desk.local/'));
    expect([page.status, page.headers.get('content-type'), await page.text()]).toEqual([
      200,
      'text/html; charset=UTF-8',
      '<!doctype html><title>desk</title>',
    ]);
    expect((await handler.fetch(new Request('http://desk.local/sessions'))).status).toBe(401);
  });
});
