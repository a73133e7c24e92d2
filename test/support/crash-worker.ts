/**
 * A long scripted support-desk session for the crash test (test/integration/crash-resume.test.ts).
 *
 * Run as a process, `node --import tsx test/support/crash-worker.ts <directory> <sessionId>` drives
 * the session stored in a `FileCheckpointStore` at `<directory>` until it terminates, resuming
 * wherever an earlier (killed) process left it. Every model answer is a pure function of the model
 * request, so any process can continue any step. It prints one line per event on stdout:
 * `ready`, `status <info.status> <step>` (what a fresh process saw first), `progress <what>`,
 * `busy`, and finally `done <step>`.
 *
 * Imported, it gives the desk and the driver, so the test can run the same session uninterrupted.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  type CheckpointStore,
  FileCheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  type LLMMessage,
  type ModelRequest,
  ScriptedChatClient,
  type ScriptedStep,
  type Session,
  SessionBusyError,
  type SessionInfo,
  TextMentionTermination,
  tool,
} from '../../src/index.js';

/** User turns before the closing one; each is 3 or 4 steps (user, triage, specialist(s)). */
export const USER_TURNS = 14;
/** What the coordinator says to end the session; the termination condition watches for it. */
export const FINAL_PHRASE = 'FINISHED';

export const question = (k: number): string =>
  k === USER_TURNS ? `Q${k}: that is all, thank you` : `Q${k}: please check record R-${100 + k}`;
export const specialistFor = (k: number): 'billing' | 'tech' => (k % 2 === 0 ? 'billing' : 'tech');
/** Billing escalates these turns to tech after its own lookup. */
export const escalates = (k: number): boolean => k % 3 === 2 && specialistFor(k) === 'billing';
export const lookupResult = (query: string, agent: string): string =>
  `record for ${query} via ${agent}: ok`;
export const answerText = (agent: string, k: number): string =>
  `A${k} from ${agent}: ${lookupResult(`Q${k}`, agent)}`;
export const FINAL_ANSWER = `All done. ${FINAL_PHRASE}`;

/** The user turn a request is about: the number in the last user message. */
function turnOf(request: ModelRequest): number {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i] as LLMMessage;
    if (m.role !== 'user') continue;
    const match = /^Q(\d+):/.exec(m.content);
    if (match) return Number(match[1]);
  }
  throw new Error('crash-worker: the request has no user question');
}

const call = (id: string, name: string, args: unknown): ScriptedStep => ({
  content: null,
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
  usage: { promptTokens: 3, completionTokens: 1 },
});

export interface DeskOptions {
  /** How long each model call takes. @default 0 */
  readonly modelDelayMs?: number;
  /** How long each lookup takes. @default 0 */
  readonly toolDelayMs?: number;
  /** Told what is about to happen (model calls, tool runs). */
  readonly onProgress?: (what: string) => void;
}

/** The desk: a coordinator and two specialists whose models answer from the request. */
export function buildDesk(store: CheckpointStore, options: DeskOptions = {}): HandoffWorkflow {
  const progress = options.onProgress ?? (() => {});
  const wait = async (ms: number | undefined) => {
    if (ms !== undefined && ms > 0) await sleep(ms);
  };
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a record up.',
    parameters: z.object({ query: z.string(), agent: z.string() }),
    // A read (API.md §17): redone after a crash; a "once" lookup would be in doubt.
    effect: 'read',
    execute: async ({ query, agent }) => {
      progress(`tool:${agent}:${query}`);
      await wait(options.toolDelayMs);
      progress(`tool-done:${agent}:${query}`);
      return lookupResult(query, agent);
    },
  });
  const model = (agent: string, decide: (request: ModelRequest, k: number) => ScriptedStep) =>
    new ScriptedChatClient(async (request) => {
      const k = turnOf(request);
      progress(`model:${agent}:Q${k}`);
      await wait(options.modelDelayMs);
      return decide(request, k);
    });
  const triage = new Agent({
    name: 'triage',
    client: model('triage', (_request, k) =>
      k === USER_TURNS
        ? { content: FINAL_ANSWER, usage: { promptTokens: 5, completionTokens: 3 } }
        : call(`ho_triage_${k}`, `handoff_to_${specialistFor(k)}`, {}),
    ),
  });
  const specialist = (name: 'billing' | 'tech') =>
    new Agent({
      name,
      tools: [lookup],
      maxToolIterations: 3,
      client: model(name, (request, k) => {
        const last = request.messages.at(-1);
        const ownResult = last?.role === 'tool' && last.toolCallId === `lk_${name}_${k}`;
        if (!ownResult) return call(`lk_${name}_${k}`, 'lookup', { query: `Q${k}`, agent: name });
        if (name === 'billing' && escalates(k))
          return call(`ho_billing_${k}`, 'handoff_to_tech', {});
        return { content: answerText(name, k), usage: { promptTokens: 7, completionTokens: k } };
      }),
    });
  return new HandoffBuilder({
    name: 'crash-desk',
    participants: [triage, specialist('billing'), specialist('tech')],
  })
    .coordinator(triage)
    .addHandoff('billing', ['tech'])
    .withTerminationCondition(new TextMentionTermination(FINAL_PHRASE, { sources: ['triage'] }))
    .withCheckpointing(store)
    .build();
}

/** How many user questions the thread holds (the next question's number). */
export function questionsAsked(thread: readonly AgentMessage[]): number {
  return thread.filter((m) => m.type === 'TextMessage' && m.source === 'user').length;
}

/**
 * Drives the session until it terminates: a fresh session gets Q0, a paused one the next
 * question, and an interrupted one `run()` with no task (which finishes the interrupted turn).
 * Waits while another (dead) process's lease blocks the session.
 */
export async function driveSession(
  session: Session,
  log: (line: string) => void = () => {},
): Promise<SessionInfo> {
  let first = true;
  for (;;) {
    const info = await session.info();
    if (first) log(`status ${info.status} ${info.step}`);
    first = false;
    if (info.status === 'terminated') return info;
    if (info.status === 'running') {
      log('busy');
      await sleep(100);
      continue;
    }
    try {
      if (info.status === 'awaiting_input' || info.step === 0) {
        await session.run(question(questionsAsked(await session.messages())));
      } else {
        await session.run();
      }
    } catch (error) {
      if (!(error instanceof SessionBusyError)) throw error;
      log('busy');
      await sleep(100);
    }
  }
}

async function main(): Promise<void> {
  const [directory, sessionId] = process.argv.slice(2);
  if (directory === undefined || sessionId === undefined) {
    throw new Error('usage: crash-worker.ts <directory> <sessionId>');
  }
  const line = (text: string) => process.stdout.write(`${text}\n`);
  const workflow = buildDesk(new FileCheckpointStore(directory), {
    modelDelayMs: Number(process.env.CRASH_MODEL_DELAY_MS ?? 4),
    toolDelayMs: Number(process.env.CRASH_TOOL_DELAY_MS ?? 20),
    onProgress: (what) => line(`progress ${what}`),
  });
  line('ready');
  const info = await driveSession(workflow.session(sessionId), line);
  line(`done ${info.step}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
      process.exit(1);
    },
  );
}
