import { describe, expect, it } from 'vitest';

import { checkRequest } from './request-guard.js';

const options = { token: 'secret-token-123', port: 4800 };
const request = (url: string, headers: Record<string, string> = {}) => ({
  url,
  headers: { host: '127.0.0.1:4800', ...headers },
});

describe('checkRequest()', () => {
  it('lets a request with the token in the query or the header through', () => {
    expect(checkRequest(request('/?token=secret-token-123'), options)).toEqual({ ok: true });
    expect(
      checkRequest(request('/api/sessions', { 'x-baton-token': 'secret-token-123' }), options),
    ).toEqual({ ok: true });
    expect(
      checkRequest(
        { url: '/api/events?token=secret-token-123', headers: { host: 'localhost:4800' } },
        options,
      ),
    ).toEqual({ ok: true });
  });

  it('answers 401 without the token, with a wrong one, or an empty one', () => {
    for (const url of [
      '/',
      '/api/workflow',
      '/api/events',
      '/?token=',
      '/?token=secret-token-12',
    ]) {
      expect(checkRequest(request(url), options)).toMatchObject({ ok: false, status: 401 });
    }
    expect(
      checkRequest(request('/api/sessions', { 'x-baton-token': 'SECRET-TOKEN-123' }), options),
    ).toMatchObject({ ok: false, status: 401 });
  });

  it("answers 403 to an Origin that is not the page's own, even with the token", () => {
    for (const origin of [
      'http://evil.example',
      'http://127.0.0.1:4801',
      'https://127.0.0.1:4800',
      'null',
    ]) {
      expect(
        checkRequest(request('/api/sessions?token=secret-token-123', { origin }), options),
      ).toEqual({
        ok: false,
        status: 403,
        reason: `Origin "${origin}" is not this page's origin.`,
      });
    }
    expect(
      checkRequest(
        request('/api/sessions?token=secret-token-123', { origin: 'http://127.0.0.1:4800' }),
        options,
      ),
    ).toEqual({ ok: true });
  });

  it('answers 403 to a Host other than this server (DNS rebinding)', () => {
    expect(
      checkRequest(
        { url: '/?token=secret-token-123', headers: { host: 'evil.example:4800' } },
        options,
      ),
    ).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest({ url: '/?token=secret-token-123', headers: {} }, options)).toMatchObject({
      ok: false,
      status: 403,
    });
  });
});
