import { Agent } from '../agents/agent.js';
import { rewiredOptions } from '../agents/agent-rewire.js';
import type { ChatAgent } from '../agents/chat-agent.js';
import type { ChatClient } from '../models/chat-client.js';
import type { Orchestration } from '../engine/orchestration.js';
import type { TaskResult } from '../engine/runnable.js';
import { callCost } from '../engine/recording/conversation-cost.js';
import { WorkflowRunner } from '../engine/session/workflow-runner.js';
import { ConfigError } from '../errors.js';
import { messageOf } from '../unknown-value.js';

/** One line of a cases file: the user's turns and the specialist that should answer. */
export interface RoutingCase {
  readonly input: string | readonly string[];
  /** The specialist, or `"none"`: no specialist should answer (the coordinator keeps it). */
  readonly expect: string;
}

/** What `expect` says when no specialist should answer (a greeting, an off-topic request). */
export const NO_SPECIALIST = 'none';

/** True when a case landed where it should: on its specialist, or on none for `"none"`. */
export function landedRight(result: Pick<RoutingCaseResult, 'expect' | 'actual'>): boolean {
  return result.actual === null ? result.expect === NO_SPECIALIST : result.actual === result.expect;
}

/** What one case did: who answered first (null: no specialist), model calls and tokens. */
export interface RoutingCaseResult {
  readonly input: string | readonly string[];
  readonly expect: string;
  readonly actual: string | null;
  readonly calls: number;
  readonly tokens: { readonly prompt: number; readonly completion: number };
  /**
   * What the case's model calls cost at the workflow's prices (its `CostTermination`), in US
   * dollars; absent when they are not known for every call.
   */
  readonly costUsd?: number;
  /** The error that ended the case, when one did. */
  readonly error?: string;
}

/** The measure of a workflow's routing over a set of cases. */
export interface RoutingReport {
  readonly accuracy: number;
  /** Per expected agent, how many cases landed with each actual agent (`"null"`: none). */
  readonly confusion: Record<string, Record<string, number>>;
  readonly cases: readonly RoutingCaseResult[];
}

/** Options of `evalRouting()`. */
export interface RoutingEvalOptions {
  /** Cases run at once. @default 4 */
  readonly concurrency?: number;
  /** Called after each case with how many are done. */
  readonly onCase?: (done: number, total: number) => void;
}

/** Thrown into a case's run once a specialist has answered: nothing more is needed of it. */
class Landed extends Error {
  override readonly name = 'Landed';
}

/** Who routes (the coordinator, or the first participant) and who is a specialist. */
export function specialistsOf(orchestration: Orchestration): {
  entry: string | undefined;
  specialists: string[];
} {
  const listed = orchestration.descriptor.participants;
  const names = Array.isArray(listed)
    ? listed.filter((n): n is string => typeof n === 'string')
    : [...orchestration.participants.keys()];
  const coordinator = orchestration.descriptor.coordinator;
  const entry = typeof coordinator === 'string' ? coordinator : names[0];
  return { entry, specialists: names.filter((n) => n !== entry) };
}

/** The orchestration of a workflow built by Baton. */
export function orchestrationOf(workflow: unknown): Orchestration {
  if (!(workflow instanceof WorkflowRunner)) {
    throw new ConfigError(
      'evalRouting(): the workflow must be a workflow or team built by this copy of Baton.',
      { path: 'workflow' },
    );
  }
  return workflow.orchestration;
}

/**
 * Runs each case with the workflow's own model clients, in a fresh session without a store, until
 * the first specialist's model answers (its answer is not acted on: no tool of it runs), and
 * measures accuracy, the confusion matrix, and model calls and tokens per case.
 */
export async function evalRouting(
  orchestration: Orchestration,
  cases: readonly RoutingCase[],
  options: RoutingEvalOptions = {},
): Promise<RoutingReport> {
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ConfigError(
      `evalRouting(): concurrency must be a positive integer, got ${concurrency}.`,
      {
        path: 'concurrency',
      },
    );
  }
  const { specialists } = specialistsOf(orchestration);
  const results: RoutingCaseResult[] = new Array(cases.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < cases.length; i = next++) {
      const item = cases[i];
      if (item === undefined) continue;
      results[i] = await runCase(orchestration, new Set(specialists), item, i);
      options.onCase?.(++done, cases.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, cases.length) }, worker));
  const confusion: Record<string, Record<string, number>> = {};
  let right = 0;
  for (const r of results) {
    const row = (confusion[r.expect] ??= {});
    const key = String(r.actual);
    row[key] = (row[key] ?? 0) + 1;
    if (landedRight(r)) right++;
  }
  return { accuracy: cases.length === 0 ? 0 : right / cases.length, confusion, cases: results };
}

async function runCase(
  orchestration: Orchestration,
  specialists: ReadonlySet<string>,
  item: RoutingCase,
  index: number,
): Promise<RoutingCaseResult> {
  let calls = 0;
  let prompt = 0;
  let completion = 0;
  let cost: number | undefined = 0;
  let actual: string | null = null;
  const abort = new AbortController();
  const counted = (name: string, client: ChatClient): ChatClient => ({
    // The original's model and answer limit, by which a budget prices the calls.
    model: client.model,
    maxCompletionTokens: client.maxCompletionTokens,
    create: async (request) => {
      if (actual !== null) throw new Landed('a specialist has answered');
      const result = await client.create(request);
      calls++;
      prompt += result.usage.promptTokens;
      completion += result.usage.completionTokens;
      const spent = callCost(orchestration, name, result.usage);
      cost = cost === undefined || spent === undefined ? undefined : cost + spent;
      if (specialists.has(name)) {
        actual = name;
        abort.abort();
        throw new Landed(`${name} answered`);
      }
      return result;
    },
  });
  const participants = new Map<string, ChatAgent>();
  for (const [name, agent] of orchestration.participants) {
    const options = rewiredOptions(agent, { client: (client) => counted(name, client) });
    // The copy streams nothing: only who answers, and what it cost, is measured.
    participants.set(
      name,
      options === undefined ? agent : new Agent({ ...options, stream: false }),
    );
  }
  const session = new WorkflowRunner({ ...orchestration, participants }).session(
    `routing-${index}`,
  );
  const turns = typeof item.input === 'string' ? [item.input] : item.input;
  let error: string | undefined;
  for (const text of turns) {
    let result: TaskResult;
    try {
      result = await session.run(text, { signal: abort.signal });
    } catch (thrown) {
      if (actual === null) error = messageOf(thrown);
      break;
    }
    if (actual !== null || result.status !== 'awaiting_input') break;
  }
  return {
    input: item.input,
    expect: item.expect,
    actual,
    calls,
    tokens: { prompt, completion },
    ...(cost === undefined ? {} : { costUsd: cost }),
    ...(error === undefined ? {} : { error }),
  };
}
