import type * as OpenAISdk from 'openai';

import { ConfigError } from '../errors.js';
import { codeOf, messageOf } from '../unknown-value.js';

const PACKAGE = 'openai';

/** Imports the `openai` SDK; only `OpenAIChatClient` calls this, on its first request. */
function importSdk(): Promise<typeof OpenAISdk> {
  return import('openai');
}

/**
 * Loads the `openai` SDK, an optional peer dependency (a desk on an AI SDK provider never needs
 * its 20 MB). When it is not installed the error names the package and the install command; any
 * other failure is rethrown as it is.
 */
export async function loadOpenAI(
  load: () => Promise<typeof OpenAISdk> = importSdk,
): Promise<typeof OpenAISdk> {
  try {
    return await load();
  } catch (error) {
    const code = codeOf(error);
    const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
    // Only the SDK itself missing: a broken install of it (a file of its own gone) says so as is.
    if (missing && /['"]openai['"]/.test(messageOf(error))) {
      throw new ConfigError(
        `OpenAIChatClient needs the optional peer dependency "${PACKAGE}", which is not ` +
          `installed. Install it with: npm install ${PACKAGE}`,
        { cause: error },
      );
    }
    throw error;
  }
}
