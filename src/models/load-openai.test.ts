import { describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import { loadOpenAI } from './load-openai.js';

/** The error Node's ESM loader throws for a bare specifier that is not installed. */
function notFound(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
}

describe('loadOpenAI()', () => {
  it('loads the installed SDK', async () => {
    const sdk = await loadOpenAI();
    expect(typeof sdk.default).toBe('function');
    expect(typeof sdk.APIError).toBe('function');
  });

  it('names the package and the install command when the SDK is not installed', async () => {
    const missing = notFound("Cannot find package 'openai' imported from /app/dist/models/x.js");
    const failure = await loadOpenAI(() => Promise.reject(missing)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).message).toBe(
      'OpenAIChatClient needs the optional peer dependency "openai", which is not installed. ' +
        'Install it with: npm install openai',
    );
    expect((failure as ConfigError).cause).toBe(missing);
  });

  it('rethrows any other failure as it is, a missing file of the SDK included', async () => {
    const broken = notFound("Cannot find module '/app/node_modules/openai/index.mjs'");
    await expect(loadOpenAI(() => Promise.reject(broken))).rejects.toBe(broken);
    const other = new SyntaxError('Unexpected token');
    await expect(loadOpenAI(() => Promise.reject(other))).rejects.toBe(other);
  });
});
