import { describe, expect, it } from 'vitest';

import { ConfigError } from '../../errors.js';
import { checkServerConfig } from './mcp-server-config.js';

describe('checkServerConfig()', () => {
  it('accepts a stdio server and labels it by its command line', () => {
    expect(
      checkServerConfig({
        command: 'node',
        args: ['server.js', '/data'],
        env: { A: '1' },
        cwd: '/srv',
      }),
    ).toEqual({
      kind: 'stdio',
      label: 'node server.js /data',
      command: 'node',
      args: ['server.js', '/data'],
      env: { A: '1' },
      cwd: '/srv',
    });
    expect(checkServerConfig({ command: 'mcp-server' })).toEqual({
      kind: 'stdio',
      label: 'mcp-server',
      command: 'mcp-server',
      args: [],
      env: {},
    });
  });

  it('accepts an http(s) server and keeps credentials and queries out of its label', () => {
    const checked = checkServerConfig({
      url: 'https://user:pw@tools.example:8443/mcp?key=abc',
      headers: { authorization: 'Bearer x' },
    });
    expect(checked).toMatchObject({
      kind: 'http',
      label: 'https://tools.example:8443/mcp',
      headers: { authorization: 'Bearer x' },
    });
    expect(checked.kind === 'http' && checked.url.href).toBe(
      'https://user:pw@tools.example:8443/mcp?key=abc',
    );
    expect(checkServerConfig({ url: new URL('http://127.0.0.1:3001/mcp') })).toMatchObject({
      kind: 'http',
      label: 'http://127.0.0.1:3001/mcp',
      headers: {},
    });
  });

  it('rejects configs that cannot work, naming the field', () => {
    const cases: [unknown, string, string | undefined][] = [
      [
        { command: 'x', url: 'http://a' },
        'mcpTools(): the server needs either `command` (a program to start over stdio) or `url` ' +
          '(a Streamable HTTP endpoint), not both or neither.',
        undefined,
      ],
      [null, 'not both or neither.', undefined],
      [{ command: ' ' }, 'mcpTools(): command must be a non-empty string, got " ".', 'command'],
      [{ command: 'x', args: 'a b' }, 'mcpTools(): `args` must be an array of strings.', 'args'],
      [{ command: 'x', env: { N: 1 } }, 'mcpTools(): `env` must map names to strings.', 'env'],
      [{ command: 'x', cwd: 3 }, 'mcpTools(): `cwd` must be a directory path.', 'cwd'],
      [{ url: 'localhost:3000' }, 'mcpTools(): url "localhost:3000" is not an http(s) URL.', 'url'],
      [{ url: 'not a url' }, 'mcpTools(): url "not a url" is not an http(s) URL.', 'url'],
      [
        { url: 'http://a/mcp', headers: { n: 1 } },
        'mcpTools(): `headers` must map names to strings.',
        'headers',
      ],
    ];
    for (const [config, message, path] of cases) {
      let thrown: unknown;
      try {
        checkServerConfig(config);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).message).toContain(message);
      expect((thrown as ConfigError).path).toBe(path);
    }
  });
});
