import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';

import { startBaton } from '../support/baton-process.js';
import { BROWSER_TEST_MS, chromiumRuns, closeChromium, headlessPage } from '../support/chromium.js';
import { SKIP_NOTES } from '../support/skip-notes.js';

// End to end: `baton serve --ui` on the demo's support desk (its offline model), the customer chat
// page driven in Debian's Chromium through playwright-core (no browser download), as the devtools
// test does. Skipped only where Chromium is absent and CI did not ask for every service
// (BATON_REQUIRE_SERVICES=1 makes a missing Chromium a failure).
const runs = chromiumRuns;

const root = resolve(import.meta.dirname, '../..');
const results = join(root, 'test-results');
const DESK = 'test/support/serve-ui-desk.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(closeChromium);

/** Starts `baton serve <DESK> --ui` and resolves with the page's address it prints. */
function serveUi(thinkMs: number): Promise<string> {
  return startBaton(
    cleanups,
    ['serve', DESK, '--ui', '--port', '0'],
    /(http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/,
    { BATON_DESK_THINK_MS: String(thinkMs) },
  );
}

function browser(): Promise<{ page: Page; errors: string[] }> {
  return headlessPage(cleanups, { width: 900, timeoutMs: 20_000 });
}

async function send(page: Page, text: string): Promise<void> {
  await page.locator('#send:not([disabled])').waitFor();
  await page.fill('#reply', text);
  await page.press('#reply', 'Enter');
}

/**
 * The transcript as the customer sees it, one line per entry: `who: text` for a message, the
 * note's text, and for an approval card its calls with their buttons or decision.
 */
function transcript(page: Page): Promise<string[]> {
  return page.locator('#transcript > *').evaluateAll((entries) =>
    entries.map((el) => {
      const text = (selector: string) => el.querySelector(selector)?.textContent ?? '';
      if (el.classList.contains('msg'))
        return `${text('.who')}: ${text('.body')}${el.classList.contains('draft') ? ' (typing)' : ''}`;
      if (el.classList.contains('approval')) {
        const calls = [...el.querySelectorAll('.call')].map((row) =>
          [...row.children]
            .map((c) => (c.tagName === 'BUTTON' ? `[${c.textContent}]` : c.textContent))
            .join(' '),
        );
        return `${text('.who')}: ${calls.join('; ')}`;
      }
      return el.textContent ?? '';
    }),
  );
}

const QUESTION =
  'billing: Invoice INV-1003 ($89.00) was charged 2 times. Shall I refund the duplicate charge?';
const DONE =
  'billing: Done: $89.00 refunded on INV-1003 (refund R-1003-1). It shows on your statement within 3 days.';

describe('the chat page of `baton serve --ui` in Chromium', { timeout: BROWSER_TEST_MS }, () => {
  beforeEach((ctx) => {
    if (!runs) ctx.skip(SKIP_NOTES.chromium);
  });

  it('talks to the desk: handoff to billing, the question answered, the refund approved', async () => {
    const url = await serveUi(0);
    const { page, errors } = await browser();
    await page.goto(url);
    // The token leaves the address bar at once (it stays in the tab's sessionStorage).
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.textContent('#status')).toBe('new');

    await send(page, 'I was charged twice for INV-1003');
    await page.locator('#status.awaiting_input').waitFor();
    expect(await page.textContent('#ask')).toBe('billing is waiting for your answer.');
    expect(await page.textContent('#agent')).toBe('with billing');
    await send(page, 'yes please');
    await page.locator('.approval button.approve:not([disabled])').waitFor();
    expect(await page.textContent('#ask')).toBe(
      'billing needs your approval above (or write a message to decline).',
    );
    mkdirSync(results, { recursive: true });
    await page.screenshot({ path: join(results, 'serve-ui-approval.png') });
    await page.click('.approval button.approve');
    await page.locator('#transcript .msg', { hasText: 'Done: $89.00 refunded' }).waitFor();
    await page.locator('#status.awaiting_input').waitFor();
    expect(await transcript(page)).toEqual([
      'You: I was charged twice for INV-1003',
      'triage handed over to billing',
      'billing is using lookup_invoice',
      QUESTION,
      'You: yes please',
      'triage handed over to billing',
      'billing is using refund_duplicate_charge',
      'billing asks for your approval: refund_duplicate_charge({"invoiceId":"INV-1003"}) Approved',
      DONE,
    ]);
    await page.screenshot({ path: join(results, 'serve-ui-refunded.png') });
    expect(errors).toEqual([]);
  });

  it('resumes the stream after a reload mid-run: nothing missed, nothing shown twice', async () => {
    // Every model call takes 1.5 s (the first run is 3 calls, the refund 2 more): long enough that
    // nothing else arrives between a check and the reload, even on a loaded machine.
    const url = await serveUi(1500);
    const { page, errors } = await browser();
    await page.goto(url);
    await send(page, 'I was charged twice for INV-1003');
    // Triage has handed off; billing is thinking about its lookup.
    await page.locator('#transcript .note.handoff').waitFor();
    expect(await page.textContent('#status')).toBe('answering…');
    const before = await transcript(page);
    expect(before).toEqual([
      'You: I was charged twice for INV-1003',
      'triage handed over to billing',
    ]);
    await page.reload();
    // The page shows what it had, then follows the run from its last event.
    await page.locator('#status.awaiting_input').waitFor();
    expect(await transcript(page)).toEqual([
      'You: I was charged twice for INV-1003',
      'triage handed over to billing',
      'billing is using lookup_invoice',
      QUESTION,
    ]);

    await send(page, 'yes please');
    await page.locator('.approval button.reject:not([disabled])').waitFor();
    // Reloaded while paused: the approval is still there to decide.
    await page.reload();
    await page.locator('.approval button.approve:not([disabled])').click();
    // The refund's answer is being thought about: reload again before it comes.
    await page.locator('#status.running').waitFor();
    await page.reload();
    await page.locator('#transcript .msg', { hasText: 'Done: $89.00 refunded' }).waitFor();
    await page.locator('#status.awaiting_input').waitFor();
    expect(await transcript(page)).toEqual([
      'You: I was charged twice for INV-1003',
      'triage handed over to billing',
      'billing is using lookup_invoice',
      QUESTION,
      'You: yes please',
      'triage handed over to billing',
      'billing is using refund_duplicate_charge',
      'billing asks for your approval: refund_duplicate_charge({"invoiceId":"INV-1003"}) Approved',
      DONE,
    ]);
    expect(errors).toEqual([]);
  });

  it('rejects a refund: no money moves and billing says so', async () => {
    const url = await serveUi(0);
    const { page, errors } = await browser();
    await page.goto(url);
    await send(page, 'I was charged twice for INV-1003');
    await page.locator('#status.awaiting_input').waitFor();
    await send(page, 'yes please');
    await page.locator('.approval button.reject:not([disabled])').click();
    await page.locator('#transcript .msg', { hasText: 'Understood' }).waitFor();
    expect((await transcript(page)).slice(-2)).toEqual([
      'billing asks for your approval: refund_duplicate_charge({"invoiceId":"INV-1003"}) Rejected',
      'billing: Understood: I did not refund it. Anything else I can do?',
    ]);
    // A new conversation starts empty, with a new session.
    await page.click('#restart');
    expect(await transcript(page)).toEqual([]);
    expect(await page.textContent('#status')).toBe('new');
    expect(errors).toEqual([]);
  });
});
