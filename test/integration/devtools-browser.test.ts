import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';

import { startBaton } from '../support/baton-process.js';
import { BROWSER_TEST_MS, chromiumRuns, closeChromium, headlessPage } from '../support/chromium.js';
import { SKIP_NOTES } from '../support/skip-notes.js';

// End to end: `baton dev` on a sample with a scripted model, driven in Debian's Chromium through
// playwright-core (no browser download). Skipped only where Chromium is absent and CI did not ask
// for every service (BATON_REQUIRE_SERVICES=1 makes a missing Chromium a failure).
const runs = chromiumRuns;

const root = resolve(import.meta.dirname, '../..');
const results = join(root, 'test-results');

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(closeChromium);

/**
 * Starts `baton dev <args>` and, meanwhile, a page of the file's Chromium; opens the address `baton
 * dev` prints in it.
 */
async function devtoolsPage(args: string[]): Promise<{ page: Page; errors: string[] }> {
  const [url, opened] = await Promise.all([
    startBaton(cleanups, ['dev', ...args], /^Baton devtools: (\S+)\n/),
    headlessPage(cleanups, { width: 1400, timeoutMs: 15_000 }),
  ]);
  await opened.page.goto(url);
  return opened;
}

async function send(page: Page, text: string): Promise<void> {
  await page.locator('#send:not([disabled])').waitFor();
  await page.fill('#reply', text);
  await page.press('#reply', 'Enter');
}

/**
 * Edge labels that overlap another label or a node on screen, from the drawn boxes (the label
 * text's bounding rect, the node's rect), as "label a->b × node c".
 */
async function labelClashes(page: Page): Promise<string[]> {
  const boxes = await page.locator('#graph .edge text, #graph .node rect').evaluateAll((elements) =>
    elements.map((el) => {
      const r = el.getBoundingClientRect();
      const edge = el.closest('.edge');
      const name = edge
        ? `label ${edge.getAttribute('data-from')}->${edge.getAttribute('data-to')}`
        : `node ${el.closest('.node')?.getAttribute('data-state')}`;
      return { name, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }),
  );
  expect(boxes.filter((b) => b.name.startsWith('label')).length).toBeGreaterThan(0);
  return boxes.flatMap((a, i) =>
    boxes
      .slice(i + 1)
      .filter(
        (b) =>
          (a.name.startsWith('label') || b.name.startsWith('label')) &&
          a.left < b.right &&
          b.left < a.right &&
          a.top < b.bottom &&
          b.top < a.bottom,
      )
      .map((b) => `${a.name} × ${b.name}`),
  );
}

const transcript = (page: Page) => page.locator('#transcript');

/** The widths the page must work at: a phone, a tablet, small and large laptops, a desktop. */
const WIDTHS = [390, 820, 1024, 1280, 1440];

/**
 * What is wrong with the page's layout at its current size, from the drawn boxes: a node not
 * within the viewport's width or its panel's, two nodes overlapping, a button outside its panel, a transcript
 * squeezed away.
 */
async function layoutFaults(page: Page): Promise<string[]> {
  const width = (await page.evaluate('document.documentElement.clientWidth')) as number;
  const box = (r: { left: number; right: number; top: number; bottom: number }) => ({
    left: r.left,
    right: r.right,
    top: r.top,
    bottom: r.bottom,
  });
  const nodes = await page.locator('#graph .node rect').evaluateAll((rects) =>
    rects.map((rect) => {
      const r = rect.getBoundingClientRect();
      const name = rect.closest('.node')?.getAttribute('data-state') ?? '';
      return { name, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }),
  );
  const buttons = await page.locator('#approvals button, #send, #stop').evaluateAll((all) =>
    all.map((button) => {
      const r = button.getBoundingClientRect();
      const p = (button.closest('.panel') as typeof button).getBoundingClientRect();
      return {
        name: button.textContent ?? '',
        left: r.left,
        right: r.right,
        top: r.top,
        bottom: r.bottom,
        panel: { left: p.left, right: p.right, top: p.top, bottom: p.bottom },
      };
    }),
  );
  const transcript = box(
    await page.locator('#transcript').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }),
  );
  const faults: string[] = [];
  const graphBox = box(
    await page.locator('#graph-box').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }),
  );
  for (const n of nodes) {
    if (n.left < 0 || n.right > width) faults.push(`node ${n.name} outside the viewport`);
    else if (n.left < graphBox.left || n.right > graphBox.right)
      faults.push(`node ${n.name} clipped by its panel`);
  }
  nodes.forEach((a, i) => {
    for (const b of nodes.slice(i + 1)) {
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
        faults.push(`node ${a.name} × node ${b.name}`);
    }
  });
  for (const b of buttons) {
    const inside =
      b.left >= b.panel.left &&
      b.right <= b.panel.right &&
      b.top >= b.panel.top &&
      b.bottom <= b.panel.bottom;
    if (!inside) faults.push(`button ${b.name} outside its panel`);
  }
  if (transcript.right - transcript.left < 200 || transcript.bottom - transcript.top < 100)
    faults.push('transcript squeezed away');
  return faults;
}

/** The layout faults and label clashes at every width of `WIDTHS`, by width; screenshots each. */
async function faultsAtEveryWidth(page: Page, name: string): Promise<Record<number, string[]>> {
  const found: Record<number, string[]> = {};
  mkdirSync(results, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    // Two frames: the new size is laid out and painted.
    await page.evaluate(
      'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))',
    );
    found[width] = [...(await layoutFaults(page)), ...(await labelClashes(page))];
    await page.screenshot({ path: join(results, `devtools-${name}-${width}.png`), fullPage: true });
  }
  return found;
}

const noFaults = Object.fromEntries(WIDTHS.map((w) => [w, []]));

describe('devtools page in Chromium', { timeout: BROWSER_TEST_MS }, () => {
  beforeEach((ctx) => {
    if (!runs) ctx.skip(SKIP_NOTES.chromium);
  });

  it('drives a session: handoff highlighted, the pause answered, a run stopped', async () => {
    const { page, errors } = await devtoolsPage(['samples/devtools-desk.ts']);
    await expect(page.locator('#graph .node').count()).resolves.toBe(5);
    expect(await labelClashes(page)).toEqual([]);
    await expect(page.locator('#graph .edge[data-from="stopped"]').count()).resolves.toBe(1);
    expect(await page.textContent('#workflow-name')).toBe(
      'devtools-desk · samples/devtools-desk.ts',
    );

    await send(page, 'I was charged twice for INV-1001');
    await page
      .locator('#graph .edge.handoff-last[data-from="triage"][data-to="billing"]')
      .waitFor();
    await page.locator('#status.awaiting_input').waitFor();
    await page.locator('#graph .node.asking[data-state="billing"]').waitFor();
    await page.locator('#graph .node.active[data-state="awaitingInput"]').waitFor();
    expect(await page.textContent('#ask')).toBe(
      'billing asks: INV-1001 ($49) was charged twice. Shall I refund the duplicate?',
    );
    expect(await transcript(page).textContent()).toContain(
      'lookup_invoice({"invoiceId":"INV-1001"})',
    );
    expect(await transcript(page).textContent()).toContain('brief {"reason":"a billing question"}');
    expect(await transcript(page).textContent()).toContain('completion tokens');
    expect(await page.textContent('#conditions')).toMatch(/messages 3\/40.*tokens \d+\/5,000/);

    await send(page, 'yes please');
    await transcript(page).getByText('Done: $49 refunded on INV-1001. Anything else?').waitFor();
    expect(await transcript(page).textContent()).toContain(
      'refund_duplicate_charge → {"invoiceId":"INV-1001","refunded":49}',
    );

    await send(page, 'my internet line is slow');
    await page.locator('#status.running').waitFor();
    await page.locator('#sessions li.selected .pill.running').waitFor();
    await page.locator('#graph .node.active[data-state="technical"]').waitFor();
    await page
      .locator('#graph .edge.handoff-last[data-from="triage"][data-to="technical"]')
      .waitFor();
    await page.click('#stop');
    await page.locator('#status.cancelled').waitFor();
    expect(await page.textContent('#status')).toBe('cancelled');
    await transcript(page).getByText('cancelled: the run was stopped').waitFor();
    expect(await page.isDisabled('#stop')).toBe(true);
    await page.locator('#sessions li.selected .pill.cancelled').waitFor();
    // The turns the Stop ended show as stopped on the timeline, not as failures.
    await page.locator('#timeline .tl-row:has(.tl-bar.stopped)').first().waitFor();
    expect(await page.locator('#timeline .tl-bar.failed').count()).toBe(0);
    expect(await page.textContent('#timeline')).not.toContain('Error');

    mkdirSync(results, { recursive: true });
    await page.screenshot({ path: join(results, 'devtools-stopped.png') });

    const first = await page.textContent('#session-id');
    await page.click('#new-session');
    await expect.poll(() => page.textContent('#session-id'), { timeout: 15_000 }).not.toBe(first);
    expect(await page.textContent('#status')).toBe('idle');
    await expect(page.locator('#sessions li').count()).resolves.toBe(2);
    expect(errors).toEqual([]);
  });

  it('lights both branches of a graph while they run, and clears each as it answers', async () => {
    const { page, errors } = await devtoolsPage(['test/support/fan-graph.ts']);
    await page.locator('#graph .node[data-state="left"]').waitFor();
    // The page records every set of speaking nodes it shows, as it shows it: reading the set back
    // from the test afterwards would race the branches' answers on a loaded machine (each branch
    // speaks for 1.5 s; a round trip to the page can take longer than that beside the heavy suites).
    // (A string: the test's tsconfig has no DOM types.)
    await page.evaluate(`(() => {
      const seen = [];
      const read = () =>
        [...document.querySelectorAll('#graph .node.speaking')]
          .map((n) => n.getAttribute('data-state'))
          .sort();
      new MutationObserver(() => {
        const now = read();
        if (JSON.stringify(now) !== JSON.stringify(seen.at(-1))) seen.push(now);
      }).observe(document.querySelector('#graph'), {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ['class'],
      });
      window.speakingSeen = seen;
    })()`);
    await send(page, 'go');
    await transcript(page).getByText('join done').waitFor();
    await page.locator('#status', { hasText: 'terminated' }).waitFor();
    const seen = (await page.evaluate('window.speakingSeen')) as string[][];
    expect(seen).toContainEqual(['left', 'right']);
    expect(seen.at(-1)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('plays the support-desk sample to its end: the user says bye', async () => {
    const { page, errors } = await devtoolsPage(['samples/support-desk.ts']);
    await page.locator('#graph .edge text').first().waitFor();
    expect(await labelClashes(page)).toEqual([]);
    await send(page, 'I was charged twice for INV-1001');
    await page
      .locator('#graph .edge.handoff-last[data-from="triage"][data-to="billing"]')
      .waitFor();
    await page.locator('#status.awaiting_input').waitFor();
    await page.locator('#timeline .tl-row[data-operation="execute_tool"]').waitFor();
    expect(await page.locator('#timeline .tl-row').allTextContents()).toEqual([
      expect.stringMatching(/^invoke_agent triage · [\d.,]+ ms$/),
      expect.stringMatching(/^chat · [\d.,]+ ms · 0\+0 tokens$/),
      expect.stringMatching(/^invoke_agent billing · [\d.,]+ ms$/),
      expect.stringMatching(/^chat · [\d.,]+ ms · 0\+0 tokens$/),
      expect.stringMatching(/^execute_tool lookup_invoice · [\d.,]+ ms$/),
      expect.stringMatching(/^chat · [\d.,]+ ms · 120\+16 tokens$/),
    ]);
    expect(await page.textContent('#timeline .tl-head')).toMatch(/^run · [\d.,]+ ms/);
    await send(page, 'yes please');
    await transcript(page).getByText('Done: $49 refunded on INV-1001.').waitFor();
    await send(page, 'thanks, bye');
    await page.locator('#status.terminated').waitFor();
    await transcript(page).getByText("terminated: Text 'bye' mentioned").waitFor();
    await page.locator('#graph .node.active[data-state="stopped"]').waitFor();
    expect(await page.textContent('#usage-total')).toBe('325');
    mkdirSync(results, { recursive: true });
    await page.screenshot({ path: join(results, 'devtools-support-desk.png') });
    expect(errors).toEqual([]);
  });

  it('asks to approve a refund over $50: Approve pays it, Reject pays nothing', async () => {
    const { page, errors } = await devtoolsPage(['samples/devtools-desk.ts']);
    await send(page, 'I was charged twice for INV-1003');
    await page.locator('#status.awaiting_input').waitFor();
    await send(page, 'yes please');
    await page.locator('#approvals button.approve').waitFor();
    expect(await page.textContent('#ask')).toBe(
      'billing asks you to approve 1 call (or send a message, which rejects them):',
    );
    expect(await page.textContent('#approvals pre')).toBe(
      'refund_duplicate_charge({"invoiceId":"INV-1003"})',
    );
    expect(await transcript(page).textContent()).toContain('asks to approve');
    mkdirSync(results, { recursive: true });
    await page.screenshot({ path: join(results, 'devtools-approval.png') });
    await page.click('#approvals button.approve');
    await transcript(page).getByText('Done: $89 refunded on INV-1003. Anything else?').waitFor();
    await expect(page.locator('#approvals button').count()).resolves.toBe(0);

    await page.click('#new-session');
    await page.locator('#status.idle').waitFor();
    await send(page, 'I was charged twice for INV-1003');
    await page.locator('#status.awaiting_input').waitFor();
    await send(page, 'yes please');
    await page.locator('#approvals button.reject').click();
    await transcript(page).getByText('Understood: no refund on INV-1003. Anything else?').waitFor();
    expect(await transcript(page).textContent()).toContain(
      'Tool call "refund_duplicate_charge" was rejected by the user',
    );
    expect(errors).toEqual([]);
  });

  it('lists the step log of a stored session and forks from a step', async () => {
    const store = mkdtempSync(join(tmpdir(), 'baton-devtools-store-'));
    const { page, errors } = await devtoolsPage(['samples/devtools-desk.ts', '--store', store]);
    expect(await page.textContent('#persistence')).toContain(`Sessions are stored in ${store}/`);
    await send(page, 'I was charged twice for INV-1001');
    await page.locator('#status.awaiting_input').waitFor();
    await page.locator('#steps li').nth(2).waitFor();
    expect(await page.locator('#steps .event').allTextContents()).toEqual([
      'user_input',
      'agent_response:triage',
      'agent_response:billing',
    ]);
    const original = await page.textContent('#session-id');
    await page.click('#steps li:first-child button.fork');
    await expect
      .poll(() => page.textContent('#session-id'), { timeout: 15_000 })
      .not.toBe(original);
    await expect(page.locator('#steps li').count()).resolves.toBe(1);
    expect(await page.textContent('#status')).toBe('idle');
    expect(await transcript(page).textContent()).toContain('I was charged twice for INV-1001');
    expect(await transcript(page).textContent()).not.toContain('Shall I refund');
    expect(errors).toEqual([]);
  });

  it('fits a desk waiting for an approval into every width: nodes, labels, buttons, transcript', async () => {
    const { page, errors } = await devtoolsPage(['samples/devtools-desk.ts']);
    await send(page, 'I was charged twice for INV-1003');
    await page.locator('#status.awaiting_input').waitFor();
    await send(page, 'yes please');
    await page.locator('#approvals button.reject').waitFor();
    expect(await faultsAtEveryWidth(page, 'desk')).toEqual(noFaults);
    expect(errors).toEqual([]);
  });

  it('fits a round-robin team into every width', async () => {
    const { page, errors } = await devtoolsPage(['samples/writer-critic.ts']);
    await page.locator('#graph .node[data-state="critic"]').waitFor();
    expect(await faultsAtEveryWidth(page, 'team')).toEqual(noFaults);
    expect(errors).toEqual([]);
  });

  it('draws a graph workflow as built and fits it into every width', async () => {
    const { page, errors } = await devtoolsPage(['samples/review-graph.ts']);
    await page.locator('#graph .node[data-state="summary"]').waitFor();
    const edges = await page
      .locator('#graph .edge')
      .evaluateAll((all) =>
        all.map(
          (e) =>
            `${e.getAttribute('data-from')} -${e.querySelector('text')?.textContent ?? ''}-> ${e.getAttribute('data-to')}`,
        ),
      );
    expect(edges).toEqual([
      'awaitingInput -message-> writer',
      'stopped -message-> writer',
      'writer --> critic',
      'critic -REVISE-> writer',
      'critic -APPROVE-> translator_french',
      'critic -APPROVE-> translator_german',
      'translator_french --> summary',
      'translator_german --> summary',
    ]);
    await send(page, 'Write a one-line blurb for our meal-planning app.');
    await page.locator('#status.terminated').waitFor();
    await page.locator('#graph .node.active[data-state="stopped"]').waitFor();
    expect(await faultsAtEveryWidth(page, 'graph')).toEqual(noFaults);
    expect(errors).toEqual([]);
  });
});
