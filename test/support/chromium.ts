import { existsSync } from 'node:fs';

import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, which .ci/run installs when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests run: Chromium is there, or CI requires every service. */
export const chromiumRuns = existsSync(CHROMIUM) || process.env.BATON_REQUIRE_SERVICES === '1';

/**
 * How long one browser test may take in all. It only catches a hang: each step's own wait (the
 * page's timeout) fails first and names what it waited for. A test of ~6 s on a quiet machine took
 * up to 45 s beside the crash matrix and the chaos run, and over 60 s once in CI.
 */
export const BROWSER_TEST_MS = 180_000;

let launched: Promise<Browser> | undefined;

/**
 * A page of Debian's Chromium, headless, in a fresh context (its own cookies and storage) of the
 * one browser the file shares, with no background traffic; and the errors the page reports
 * (uncaught errors and console errors but a missing favicon). Closing the context is pushed onto
 * `cleanups`; the file closes the browser with `closeChromium` in `afterAll`.
 */
export async function headlessPage(
  cleanups: (() => Promise<void> | void)[],
  { width, timeoutMs }: { width: number; timeoutMs: number },
): Promise<{ page: Page; errors: string[] }> {
  launched ??= chromium.launch({
    executablePath: CHROMIUM,
    timeout: 60_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context = await (await launched).newContext({ viewport: { width, height: 900 } });
  cleanups.push(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().includes('favicon'))
      errors.push(message.text());
  });
  return { page, errors };
}

/** Closes the file's browser, if a test launched it. */
export async function closeChromium(): Promise<void> {
  const browser = launched;
  launched = undefined;
  if (browser) await (await browser).close();
}
