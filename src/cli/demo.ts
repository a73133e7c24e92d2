import { resolve } from 'node:path';

import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import type { ChatClient } from '../models/chat-client.js';
import { OpenAIChatClient } from '../models/openai-chat-client.js';
import { createSupportDesk } from './demo-desk.js';
import { type DeskRole, OfflineDeskModel } from './demo-model.js';
import { type TerminalIO, talk } from './terminal-session.js';

/** The terminal the demo talks to; `ask` resolves to `null` at the end of input. */
export type DemoTerminal = TerminalIO;

/** The default small model used when a key or base URL is set. */
export const DEFAULT_DEMO_MODEL = 'gpt-4.1-mini';

/** Which model the demo uses, from the environment. */
export function demoClients(
  env: NodeJS.ProcessEnv,
  thinkMs: number,
): {
  clientFor: (role: DeskRole) => ChatClient;
  banner: string;
} {
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    const model = env.BATON_MODEL || DEFAULT_DEMO_MODEL;
    // Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) accept any key.
    const client = new OpenAIChatClient({ model, apiKey: env.OPENAI_API_KEY || 'unused' });
    const where = env.OPENAI_BASE_URL ? env.OPENAI_BASE_URL : 'the OpenAI API';
    return {
      clientFor: () => client,
      banner: `Using model "${model}" at ${where} (set BATON_MODEL to change it).`,
    };
  }
  return {
    clientFor: (role) => new OfflineDeskModel(role, { thinkMs }),
    banner:
      'No OPENAI_API_KEY or OPENAI_BASE_URL is set, so the agents run on the built-in OFFLINE model: a ' +
      'deterministic, rule-based stand-in written for this scenario, not a language model. Set ' +
      'OPENAI_API_KEY (or OPENAI_BASE_URL for any OpenAI-compatible server) to use a real model.',
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
  const { clientFor, banner } = demoClients(options.env, options.thinkMs ?? 0);
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
      'Agents: triage (the coordinator) hands off to billing, technical or account; billing can escalate to technical.',
      'Type your message and press Enter. Say "bye" (or "thanks, goodbye") to finish; Ctrl-C stops at any time.',
      // A refund over $50: the desk asks before it pays.
      'Try: "I was charged twice for invoice INV-1003", then "yes please", then "y" to approve the refund, then "my internet keeps dropping".',
      `Sessions are kept in ${resolve(directory)}/ (made if missing; delete it to forget them). ` +
        `Resume this one with: ${resume} --session ${session.id}`,
      '',
    ],
    onInterrupt: () => desk.stop.set(),
  });
}
