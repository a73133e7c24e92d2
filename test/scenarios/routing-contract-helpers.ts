// Shared fixtures of the independent routing suite (routing-contract-*.test.ts), written from
// API.md §5–§7 only: a support desk of scripted agents and readers for what the models were asked.

import {
  Agent,
  type AgentMessage,
  HandoffBuilder,
  type ScriptedCall,
  ScriptedChatClient,
  type ScriptedStep,
  type ScriptedSteps,
  type TaskResult,
} from '../../src/index.js';

/** The phrase API.md §6 names as the default `handoffPhrase`. */
export const DEFAULT_PHRASE = 'This is outside my area';

/** An `Agent` together with the scripted client that backs it. */
export interface Scripted {
  readonly agent: Agent;
  readonly client: ScriptedChatClient;
}

export function scripted(
  name: string,
  steps: ScriptedSteps = [],
  description = `The ${name} desk.`,
): Scripted {
  const client = new ScriptedChatClient(steps);
  return { agent: new Agent({ name, description, client }), client };
}

/** The scripted agents of one support desk: a triage coordinator and three specialists. */
export interface Desk {
  readonly triage: Scripted;
  readonly billing: Scripted;
  readonly tech: Scripted;
  readonly account: Scripted;
  /** A builder over the four, with triage as coordinator. */
  builder(options?: { name?: string }): HandoffBuilder;
}

export interface DeskScripts {
  triage?: ScriptedSteps;
  billing?: ScriptedSteps;
  tech?: ScriptedSteps;
  account?: ScriptedSteps;
}

/** A fresh desk; an agent without a script fails loudly when it is called. */
export function desk(scripts: DeskScripts = {}): Desk {
  const triage = scripted('triage', scripts.triage, 'Routes each request to the right desk.');
  const billing = scripted('billing', scripts.billing, 'Invoices, refunds and payments.');
  const tech = scripted('tech', scripts.tech, 'Crashes, errors and installation problems.');
  const account = scripted('account', scripts.account, 'Logins, passwords and profiles.');
  return {
    triage,
    billing,
    tech,
    account,
    builder: (options = {}) =>
      new HandoffBuilder({
        ...options,
        participants: [triage.agent, billing.agent, tech.agent, account.agent],
      }).coordinator(triage.agent),
  };
}

/**
 * The user and assistant texts of a model request, in order. Roles are left out: how another
 * agent's answer is presented to a model (assistant or named user message) is the view's choice.
 */
export function said(call: ScriptedCall | undefined): string[] {
  if (call === undefined) throw new Error('No such model call was recorded.');
  const lines: string[] = [];
  for (const m of call.messages) {
    if (m.role === 'user' || m.role === 'assistant') lines.push(m.content ?? '');
  }
  return lines;
}

/** The names of the tools offered in a model request. */
export function toolNames(call: ScriptedCall | undefined): string[] {
  if (call === undefined) throw new Error('No such model call was recorded.');
  return (call.tools ?? []).map((t) => t.name);
}

/** `type(source)` of each message, for comparing the order of a run. */
export function trail(messages: readonly AgentMessage[]): string[] {
  return messages.map((m) => `${m.type}(${m.source})`);
}

/** The texts of the `TextMessage`s of a thread, as `source: content`. */
export function texts(messages: readonly AgentMessage[]): string[] {
  return messages.flatMap((m) => (m.type === 'TextMessage' ? [`${m.source}: ${m.content}`] : []));
}

/** The fields of a paused result that the routing decides. */
export function pause(result: TaskResult): {
  status: TaskResult['status'];
  agent: string | undefined;
  prompt: string | undefined;
  stopReason: string | null;
} {
  return {
    status: result.status,
    agent: result.pendingRequest?.agent,
    prompt: result.pendingRequest?.prompt,
    stopReason: result.stopReason,
  };
}

/** Collects a stream, split into the messages and the final item. */
export async function collect(
  stream: AsyncIterable<AgentMessage | TaskResult>,
): Promise<{ items: (AgentMessage | TaskResult)[]; messages: AgentMessage[] }> {
  const items: (AgentMessage | TaskResult)[] = [];
  for await (const item of stream) items.push(item);
  const messages = items.filter((i): i is AgentMessage => i.type !== 'TaskResult');
  return { items, messages };
}

/** A step that answers in JSON, as a model answering with an output schema does. */
export function scriptedJson(value: unknown): ScriptedStep {
  return { content: JSON.stringify(value) };
}
