import { resolve } from 'node:path';

import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import type { ChatClient } from '../models/chat-client.js';
import { modelFromEnvironment } from '../models/model-from-environment.js';
import { createSupportDesk } from './demo-desk.js';
import { type DeskRole, OfflineDeskModel } from './demo-model.js';
import { type TerminalIO, talk } from './terminal-session.js';

/** The terminal the demo talks to; `ask` resolves to `null` at the end of input. */
export type DemoTerminal = TerminalIO;

/** Which model the demo uses, from the environment (see `modelFromEnvironment`). */
export async function demoClients(
  env: NodeJS.ProcessEnv,
  thinkMs: number,
): Promise<{
  clientFor: (role: DeskRole) => ChatClient;
  banner: string;
}> {
  const chosen = await modelFromEnvironment(env);
  if (chosen.client !== undefined) {
    const { client } = chosen;
    return { clientFor: () => client, banner: chosen.description };
  }
  return {
    clientFor: (role) => new OfflineDeskModel(role, { thinkMs }),
    banner:
      chosen.missing === undefined
        ? 'No OPENAI_API_KEY or OPENAI_BASE_URL is set, so the agents run on the built-in OFFLINE ' +
          'model: a deterministic, rule-based stand-in written for this scenario, not a language ' +
          'model. Set OPENAI_API_KEY (or OPENAI_BASE_URL for any OpenAI-compatible server), or ' +
          'ANTHROPIC_API_KEY with @ai-sdk/anthropic installed, to use a real model.'
        : `${chosen.missing} to use that model. Until then the agents run on the built-in ` +
          'OFFLINE model: a deterministic, rule-based stand-in written for this scenario, not a ' +
          'language model.',
  };
}

/**
 * The `baton demo` conversation: a support desk with the user in the loop. Each user line is a
 * run; the session ends when the user says goodbye, input ends, or Ctrl-C stops it. Returns the
 * exit code (130 after Ctrl-C).
 */
export async function runDemo(
  terminal: DemoTerminal,
  options: {
    env: NodeJS.ProcessEnv;
    thinkMs?: number;
    sessionId?: string;
    storeDirectory?: string;
  },
): Promise<number> {
  const { clientFor, banner } = await demoClients(options.env, options.thinkMs ?? 0);
  const directory = options.storeDirectory ?? '.baton';
  const desk = createSupportDesk(clientFor, {
    checkpointStore: new FileCheckpointStore(directory),
  });
  const session = desk.workflow.session(options.sessionId);
  // `npm start` in a clone of the repository, else the installed command.
  const resume = options.env.npm_lifecycle_event === 'start' ? 'npm start --' : 'npx baton demo';
  return talk(terminal, session, {
    intro: [
      'Baton support-desk demo',
      banner,
      'Agents: triage (the coordinator) hands off to billing, technical or account; billing can escalate to technical, and to refunds once the customer is verified.',
      'Type your message and press Enter. Say "bye" (or "thanks, goodbye") to finish; Ctrl-C stops at any time.',
      // A refund over $50: the desk asks before it pays.
      'Try: "I was charged twice for invoice INV-1003", then "yes please", then "y" to approve the refund, then "my internet keeps dropping".',
      `Sessions are kept in ${resolve(directory)}/ (made if missing; delete it to forget them). ` +
        `Resume this one with: ${resume} --session ${session.id}`,
      '',
    ],
    onInterrupt: () => desk.stop.set(),
    // What the desk learned (the workflow's state): the invoice, the customer, verified or not.
    closing: async () => [`Desk state: ${JSON.stringify(await session.state())}`],
  });
}
