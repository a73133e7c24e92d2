import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';

import { startBaton } from '../support/baton-process.js';
import { BROWSER_TEST_MS, chromiumRuns, closeChromium, headlessPage } from '../support/chromium.js';
import { SKIP_NOTES } from '../support/skip-notes.js';

// API.md §19 on the devtools page: "Save as test" in Chromium writes the session's recording and a
// Vitest test (`baton dev --tests <dir>` says where).

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(closeChromium);

describe('the devtools page in Chromium', { timeout: BROWSER_TEST_MS }, () => {
  beforeEach((ctx) => {
    if (!chromiumRuns) ctx.skip(SKIP_NOTES.chromium);
  });

  it('saves a session as a test with the Save as test button', async () => {
    const tests = mkdtempSync(join(tmpdir(), 'baton-saved-tests-'));
    cleanups.push(() => rmSync(tests, { recursive: true, force: true }));
    const url = await startBaton(
      cleanups,
      ['dev', 'samples/devtools-desk.ts', '--tests', tests],
      /^Baton devtools: (\S+)\n/,
    );
    const { page, errors } = await headlessPage(cleanups, { width: 1400, timeoutMs: 15_000 });
    await page.goto(url);
    await page.locator('#send:not([disabled])').waitFor();
    await page.fill('#reply', 'I was charged twice for INV-1001');
    await page.press('#reply', 'Enter');
    await page.locator('#status.awaiting_input').waitFor();
    const id = (await page.textContent('#session-id')) ?? '';
    await page.click('#save-test');
    const saved = `Saved ${join(tests, `${id}.test.ts`)} and ${join(tests, `${id}.recording.json`)}`;
    await page.getByText(saved).waitFor();
    expect(existsSync(join(tests, `${id}.test.ts`))).toBe(true);
    const recording = JSON.parse(readFileSync(join(tests, `${id}.recording.json`), 'utf8'));
    expect(recording.turns.map((t: { agent: string }) => t.agent)).toEqual(['triage', 'billing']);
    expect(errors).toEqual([]);
  });
});
