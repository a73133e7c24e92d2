/**
 * The workflow of the tool-effects crash matrix (test/integration/tool-effects-crash.test.ts, API.md
 * §17), built alike by the test process and by the child it SIGKILLs
 * (test/support/effects-crash-worker.ts). Agent `clerk` calls, in one batch, one tool of each
 * effect the case names (`once`, `idempotent`, `read`; call ids `c_<effect>`), each with
 * `needsApproval` when the case says so. Every execution appends `<effect>:<callId>` to
 * `<directory>/effects.log`, outside any process: the executions a crash cannot hide.
 *
 * In the child, `kill` names where the process SIGKILLs itself:
 * - `before-start`: at the commit of the calls' start (the `tool_calls_started` step, or the
 *   decision that approves them), before it is written;
 * - `after-start`: right after that commit, before any tool runs;
 * - `during`: inside the `once` tool (or the only tool), after every tool logged its execution;
 * - `after-execute`: at the commit of the results, before it is written;
 * - `after-result`: right after the results are committed.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

import { z } from 'zod';

import {
  Agent,
  type CheckpointRecord,
  type CheckpointStore,
  FileCheckpointStore,
  HandoffBuilder,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  ScriptedChatClient,
  tool,
  type ToolEffect,
} from '../../src/index.js';

export type KillPoint =
  'before-start' | 'after-start' | 'during' | 'after-execute' | 'after-result';
export type StoreKind = 'file' | 'postgres' | 'redis';

export interface CrashCase {
  readonly store: StoreKind;
  /** The file store's directory, and where `effects.log` is written in every case. */
  readonly directory: string;
  /** The Postgres table or Redis key prefix of the run (one for all its cases). */
  readonly name: string;
  /** The session of this case. */
  readonly session: string;
  readonly effects: readonly ToolEffect[];
  readonly approval: boolean;
}

export const POSTGRES_URL =
  process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BATON_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function openStore(c: CrashCase): CheckpointStore {
  switch (c.store) {
    case 'file':
      return new FileCheckpointStore(join(c.directory, 'store'));
    case 'postgres':
      return new PostgresCheckpointStore({ connectionString: POSTGRES_URL, table: c.name });
    case 'redis':
      return new RedisCheckpointStore({ url: REDIS_URL, keyPrefix: `${c.name}:` });
  }
}

/** Hooks the child sets: what a commit and a tool do at the kill point. */
export interface CrashHooks {
  /** Called in every tool after it logged its execution; may kill the process. */
  afterEffect?(effect: ToolEffect, executed: number): Promise<void> | void;
}

export function crashWorkflow(c: CrashCase, store: CheckpointStore, hooks: CrashHooks = {}) {
  const log = join(c.directory, 'effects.log');
  let executed = 0;
  const tools = c.effects.map((effect) =>
    tool({
      name: `${effect}_tool`,
      description: `A tool whose effect is ${effect}.`,
      parameters: z.object({ n: z.number() }),
      effect,
      needsApproval: c.approval,
      execute: async (_args, ctx) => {
        appendFileSync(log, `${effect}:${ctx.callId}\n`);
        executed++;
        await hooks.afterEffect?.(effect, executed);
        return `${effect} done`;
      },
    }),
  );
  const client = new ScriptedChatClient((request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') {
      const results = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      return { content: `Done: ${results.join(' | ')}` };
    }
    return {
      toolCalls: c.effects.map((effect) => ({
        id: `c_${effect}`,
        name: `${effect}_tool`,
        arguments: '{"n":1}',
      })),
    };
  });
  const clerk = new Agent({ name: 'clerk', client, tools, maxToolIterations: 2 });
  return new HandoffBuilder({ name: 'effects-crash', participants: [clerk] })
    .coordinator(clerk)
    .withCheckpointing(store)
    .build();
}

/** The effects log: how often each call ran, by `<effect>:<callId>`. */
export function executions(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) if (line !== '') counts[line] = (counts[line] ?? 0) + 1;
  return counts;
}

/** Whether a record commits the start of the calls: the start step, or an approving decision. */
export function isStart(record: CheckpointRecord): boolean {
  return record.data.includes('"tool_calls_started:') || record.data.includes('"approved",true');
}
