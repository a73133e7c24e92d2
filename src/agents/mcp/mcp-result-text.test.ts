import { describe, expect, it } from 'vitest';

import { resultText } from './mcp-result-text.js';

describe('resultText()', () => {
  it('keeps text, puts placeholders for other content and joins blocks by lines', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'Two files:' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
          { type: 'resource', resource: { uri: 'file:///b.txt', text: 'hello' } },
          {
            type: 'resource',
            resource: { uri: 'file:///c.bin', blob: 'AAAA', mimeType: 'application/octet-stream' },
          },
          { type: 'resource', resource: { uri: 'file:///d', blob: 'AAAA' } },
        ],
      }),
    ).toBe(
      'Two files:\n[image image/png]\n[audio audio/wav]\n[resource_link file:///a.txt]\nhello\n' +
        '[resource file:///c.bin application/octet-stream]\n[resource file:///d]',
    );
  });

  it('sends structured content as JSON when there is no content, and nothing as ""', () => {
    expect(resultText({ content: [], structuredContent: { temperature: 21 } })).toBe(
      '{"temperature":21}',
    );
    expect(resultText({ content: [] })).toBe('');
  });

  it('names a content type it does not know instead of dropping it silently', () => {
    expect(resultText({ content: [{ type: 'hologram', data: 'x' }] })).toBe('[hologram content]');
  });

  it('reads blocks of the wrong shape as placeholders, never as an error', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 42 },
          { type: 'image', data: 'AAAA' },
          { type: 'resource', resource: null },
          { text: 'no type' },
          'a bare string',
          null,
        ],
        isError: 'yes',
      }),
    ).toBe(
      '[text content]\n[image]\n[resource]\n[unknown content]\n[unknown content]\n[unknown content]',
    );
    expect(resultText({ content: 'not a list' })).toBe('');
  });
});
