import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium, type Page } from 'playwright-core';

/** Debian's Chromium, which .ci/run installs when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests run: Chromium is there, or CI requires every service. */
export const chromiumRuns = existsSync(CHROMIUM) || process.env.BATON_REQUIRE_SERVICES === '1';

/**
 * A page of Debian's Chromium, headless, with a fresh profile and no background traffic, and the
 * errors the page reports (uncaught errors and console errors but a missing favicon). Closing the
 * browser and removing the profile is pushed onto `cleanups`.
 */
export async function headlessPage(
  cleanups: (() => Promise<void> | void)[],
  { width, timeoutMs }: { width: number; timeoutMs: number },
): Promise<{ page: Page; errors: string[] }> {
  const profile = mkdtempSync(join(tmpdir(), 'baton-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport: { width, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  cleanups.push(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });
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
