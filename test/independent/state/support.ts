// Shared builders for the independent §18 suite (conversation state), public API only.
import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  type CheckpointStore,
  type FunctionCall,
  HandoffBuilder,
  type ModelRequest,
  ScriptedChatClient,
  speakerOf,
  tool,
} from '../../../src/index.js';

/** The desk's state, as API.md §18 writes it. */
export const Desk = z.object({
  customerId: z.string().nullable(),
  verified: z.boolean(),
  priority: z.enum(['low', 'high']),
});
export type DeskState = z.infer<typeof Desk>;
export const INITIAL: DeskState = { customerId: null, verified: false, priority: 'low' };

/** The tool context as §18 extends it (the §4 fields plus `state` and `updateState`). */
export interface StateCtx {
  readonly state: unknown;
  updateState(recipe: (draft: never) => void): void;
  readonly callId: string;
  readonly agent: string;
  readonly sessionId: string;
}
export const ctxOf = (ctx: unknown) => ctx as StateCtx;

/** The last thing the user said in a model request. */
export const lastUser = (request: ModelRequest): string => {
  const found = request.messages.filter((m) => speakerOf(m) === 'user').at(-1);
  return typeof found?.content === 'string' ? found.content : '';
};
type LLM = { role: string; content?: string | null; toolCallId?: string };
export const lastMessage = (request: ModelRequest) => (request.messages as LLM[]).at(-1);
export const systemText = (request: { messages: unknown[] }) => {
  const first = (request.messages as LLM[])[0];
  return first?.role === 'system' ? (first.content ?? '') : undefined;
};
export const toolNames = (request: { tools?: { name: string }[] }) =>
  (request.tools ?? []).map((t) => t.name).sort();

let seq = 0;
export const callId = (prefix: string) => `${prefix}-${++seq}`;
export const call = (name: string, args: unknown = {}, id = callId(name)): FunctionCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});

/** Deep-frozen: the value and every object inside it. */
export function deepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every(deepFrozen);
}

export const chatTexts = (messages: readonly AgentMessage[]) =>
  messages
    .filter((m) => m.type === 'TextMessage' || m.type === 'HandoffMessage')
    .map((m) => `${m.source}: ${(m as { content: string }).content}`);

export interface DeskBuild {
  store?: CheckpointStore;
  schema?: z.ZodType;
  initial?: unknown;
  /** No `state` option at all. */
  noState?: boolean;
}

/**
 * triage (coordinator) hands off to billing on every user text. billing's instructions are a
 * function of the state; given a user text containing "verify C-<n>" it calls `verify {customerId}`
 * (sets customerId and verified) and then answers `Verified <customerId>`; a text containing
 * "high" calls `escalate` (priority high) then answers `Escalated`; any other text:
 * `Billing: <text>` (a pause).
 */
export function desk(options: DeskBuild = {}) {
  const verify = tool({
    name: 'verify',
    description: 'Marks the customer as verified.',
    parameters: z.object({ customerId: z.string() }),
    execute: async ({ customerId }, ctx) => {
      ctxOf(ctx).updateState((draft: DeskState) => {
        draft.customerId = customerId;
        draft.verified = true;
      });
      return `verified ${customerId}`;
    },
  });
  const escalate = tool({
    name: 'escalate',
    description: 'Raises the priority.',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      ctxOf(ctx).updateState((draft: DeskState) => {
        draft.priority = 'high';
      });
      return 'escalated';
    },
  });
  const instructionsSeen: unknown[] = [];
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient(() => ({
      content: null,
      toolCalls: [call('handoff_to_billing')],
    })),
  });
  const billingClient = new ScriptedChatClient((request) => {
    const last = lastMessage(request);
    if (last?.role === 'tool') {
      const text = last.content ?? '';
      return { content: text.startsWith('verified ') ? `Verified ${text.slice(9)}` : 'Escalated' };
    }
    const text = lastUser(request);
    const verifyMatch = /verify (C-\d+)/.exec(text);
    if (verifyMatch)
      return { content: null, toolCalls: [call('verify', { customerId: verifyMatch[1] })] };
    if (text.includes('high')) return { content: null, toolCalls: [call('escalate')] };
    return { content: `Billing: ${text}` };
  });
  const billing = new Agent({
    name: 'billing',
    tools: [verify, escalate],
    maxToolIterations: 3,
    instructions: (ctx: { state: unknown; sessionId: string; agent: string }) => {
      instructionsSeen.push(ctx.state);
      const s = ctx.state as Partial<DeskState>;
      return `Customer ${s.customerId ?? 'unknown'}, verified ${String(s.verified)}, priority ${s.priority}.`;
    },
    client: billingClient,
  } as ConstructorParameters<typeof Agent>[0]);
  let builder = new HandoffBuilder({
    name: 'desk',
    participants: [triage, billing],
    ...(options.noState
      ? {}
      : { state: { schema: options.schema ?? Desk, initial: options.initial ?? INITIAL } }),
  } as ConstructorParameters<typeof HandoffBuilder>[0]).coordinator(triage);
  if (options.store) builder = builder.withCheckpointing(options.store);
  return { workflow: builder.build(), billingClient, instructionsSeen };
}

/** What `session.state()` / `session.updateState()` are, as §18 names them. */
export interface StateSession {
  state(): Promise<unknown>;
  updateState(recipe: (draft: never) => unknown): Promise<void>;
}
export const stateOf = (session: unknown) => session as StateSession;
