// Shared builders for the independent §25 suite (versions), public API only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  FileCheckpointStore,
  HandoffBuilder,
  type ModelRequest,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../../src/index.js';

/** The two embedded stores, each made fresh; `dispose` removes what the file store wrote. */
export const STORES: {
  name: string;
  make: () => { store: CheckpointStore; dispose: () => void };
}[] = [
  {
    name: 'MemoryCheckpointStore',
    make: () => ({ store: new MemoryCheckpointStore(), dispose: () => {} }),
  },
  {
    name: 'FileCheckpointStore',
    make: () => {
      const dir = mkdtempSync(join(tmpdir(), 'baton-versions-'));
      return {
        store: new FileCheckpointStore(dir),
        dispose: () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
];

type LLM = { role: string; content?: string | null };
const lastUser = (request: ModelRequest): string => {
  // The user's own words: handoff notes reach the model as user-role text too; skip them.
  const found = (request.messages as LLM[])
    .filter((m) => m.role === 'user' && !String(m.content ?? '').startsWith('[handoff'))
    .at(-1);
  return typeof found?.content === 'string' ? found.content : '';
};
const lastRole = (request: ModelRequest) => (request.messages as LLM[]).at(-1)?.role;

export interface DeskOptions {
  store?: CheckpointStore;
  /** Adds a participant `helpdesk` (reachable from the coordinator). */
  extraAgent?: boolean;
  /** Adds a participant `tech`, the coordinator's target when the user says "tech". */
  tech?: boolean;
  /** Gives billing the tool `refund` (needsApproval), called when the user says "refund". */
  refund?: boolean;
  /** Gives billing the extra tool `lookup`. */
  lookup?: boolean;
  /** Billing's instructions. */
  instructions?: string;
  state?: {
    schema: z.ZodType;
    initial: unknown;
    version?: number;
    migrate?: (old: unknown, from: number) => unknown;
  };
}

/**
 * triage hands off to billing (or to tech when the user says "tech"); billing and tech answer
 * `<name>: <last user text>`, which pauses the session for the user.
 */
export function desk(options: DeskOptions = {}) {
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient((request) =>
      options.tech === true && lastUser(request).includes('tech')
        ? scriptedToolCall('handoff_to_tech', {})
        : scriptedToolCall('handoff_to_billing', {}),
    ),
  });
  const billingTools = [];
  if (options.refund === true) {
    billingTools.push(
      tool({
        name: 'refund',
        description: 'Refunds an invoice.',
        parameters: z.object({ invoiceId: z.string() }),
        needsApproval: true,
        execute: async () => 'refunded',
      }),
    );
  }
  if (options.lookup === true) {
    billingTools.push(
      tool({
        name: 'lookup',
        description: 'Looks an invoice up.',
        parameters: z.object({ invoiceId: z.string() }),
        execute: async () => 'found',
      }),
    );
  }
  const billing = new Agent({
    name: 'billing',
    instructions: options.instructions ?? 'You handle billing.',
    tools: billingTools,
    maxToolIterations: 3,
    client: new ScriptedChatClient((request) => {
      if (lastRole(request) === 'tool') return scriptedText('billing: done');
      if (options.refund === true && lastUser(request).includes('refund')) {
        return scriptedToolCall('refund', { invoiceId: 'INV-1' });
      }
      return scriptedText(`billing: ${lastUser(request)}`);
    }),
  });
  const participants = [triage, billing];
  if (options.tech === true) {
    participants.push(
      new Agent({
        name: 'tech',
        client: new ScriptedChatClient((request) => scriptedText(`tech: ${lastUser(request)}`)),
      }),
    );
  }
  if (options.extraAgent === true) {
    participants.push(
      new Agent({
        name: 'helpdesk',
        client: new ScriptedChatClient((request) => scriptedText(`helpdesk: ${lastUser(request)}`)),
      }),
    );
  }
  const builder = new HandoffBuilder({
    name: 'versions',
    participants,
    ...(options.state !== undefined ? { state: options.state } : {}),
  } as ConstructorParameters<typeof HandoffBuilder>[0]).coordinator(triage);
  if (options.store !== undefined) builder.withCheckpointing(options.store);
  return builder.build();
}

/** The stored state as §18 shows it. */
export const stateOf = (session: unknown) => (session as { state(): Promise<unknown> }).state();
export const updateStateOf = (session: unknown, recipe: (draft: never) => void) =>
  (session as { updateState(r: (draft: never) => void): Promise<void> }).updateState(recipe);
