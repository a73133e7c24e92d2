import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { chatPage } from './chat-page-html.js';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The text of the page's only element `tag`. */
function inline(html: string, tag: 'script' | 'style'): string {
  const found = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))];
  expect(found).toHaveLength(1);
  return (found[0] as RegExpMatchArray)[1] as string;
}

describe('chatPage()', () => {
  it('allows exactly its own inline script and style by their hashes, and its own origin', () => {
    const html = chatPage();
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(policy).toBe(
      `default-src 'none'; script-src ${hash(inline(html, 'script'))}; ` +
        `style-src ${hash(inline(html, 'style'))}; connect-src 'self'; img-src data:; ` +
        "base-uri 'none'; form-action 'none'",
    );
    // The policy comes before anything it governs.
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<style>'));
  });

  it('loads nothing from elsewhere and builds no markup from text', () => {
    const html = chatPage();
    expect(html).not.toMatch(/\bsrc=|https?:\/\//);
    expect(inline(html, 'script')).not.toContain('innerHTML');
  });

  it('escapes its title', () => {
    expect(chatPage('Acme <Support> & "Co"')).toContain(
      '<title>Acme &lt;Support&gt; &amp; &quot;Co&quot;</title>',
    );
  });

  it('is one script that parses as JavaScript', () => {
    expect(() => new Function(inline(chatPage(), 'script'))).not.toThrow();
  });
});
