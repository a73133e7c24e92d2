// Independent suite for API.md §17: a process killed (SIGKILL) while a "once" tool runs leaves
// that call in doubt; it is never run again by itself. A real child process, a real file store
// and a real PostgreSQL store. Written from API.md alone. Readings where the page is open:
// - the resuming process may have to wait for the dead one's lease (§7: it expires within
//   seconds), so `run()` is retried on SessionBusyError only;
// - the read call (lookup) of the batch had begun, so it was executed once before the crash; it
//   has no committed result and runs again when the turn continues, after the decision.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';

import { approve, type CheckpointStore, reject } from '../../../src/index.js';
import { crashDesk, DATABASE_URL, openStore } from './fixtures/crash-desk.js';
import {
  call,
  counts,
  fileLedger,
  notRetried,
  ofType,
  runWhenFree,
  toolReplies,
  types,
} from './support.js';
import { dropStatement } from '../../../src/checkpoint/postgres-sql.js';
import { bundledScript } from '../../support/bundled-script.js';

vi.setConfig({ testTimeout: 90_000 });

const CHILD = bundledScript('test/independent/effects/fixtures/crash-child.ts');
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

async function place(kind: 'file' | 'postgres'): Promise<string> {
  if (kind === 'file') {
    const dir = await mkdtemp(join(tmpdir(), 'baton-effects-crash-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return `file:${dir}`;
  }
  const table = `baton_fx_${randomBytes(5).toString('hex')}`;
  cleanups.push(async () => {
    const admin = new pg.Pool({ connectionString: DATABASE_URL });
    await admin.query(dropStatement(table));
    await admin.end();
  });
  return `postgres:${table}`;
}

function crash(where: string, ledger: string, session: string) {
  return spawnSync(process.execPath, [CHILD, where, ledger, session], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe.each(['file', 'postgres'] as const)(
  'a process killed while a "once" tool runs (%s store)',
  (kind) => {
    it('the resumed session pauses in doubt; the call never runs again by itself; approve runs it once more', async () => {
      const where = await place(kind);
      const dir = await mkdtemp(join(tmpdir(), 'baton-effects-ledger-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const ledgerPath = join(dir, 'ledger.txt');
      const ledger = fileLedger(ledgerPath);

      const child = crash(where, ledgerPath, 'crash-1');
      expect([child.signal, child.stdout]).toEqual(['SIGKILL', '']);
      expect(ledger.lines()).toEqual(['lookup:c1', 'refund:c2']);

      const store: CheckpointStore = openStore(where);
      cleanups.push(() => store.close());
      const { workflow, client } = crashDesk(store, ledgerPath, false);
      const session = workflow.session('crash-1');
      // The start was committed before refund ran.
      expect((await session.checkpoints()).map((c) => c.event)).toContain(
        'tool_calls_started:desk',
      );

      const paused = await runWhenFree(() => session.run());
      expect(paused.status).toBe('awaiting_input');
      expect(paused.pendingRequest).toEqual({
        id: expect.any(String),
        agent: 'desk',
        prompt: expect.any(String),
        kind: 'in_doubt',
        calls: [call('c2', 'refund', { invoiceId: 'INV-1' })],
      });
      expect(paused.pendingRequest!.prompt).toContain('refund');
      expect(ledger.lines()).toEqual(['lookup:c1', 'refund:c2']);
      expect(client.calls).toHaveLength(0);

      // Asking again changes nothing.
      const again = await session.run();
      expect(again.pendingRequest).toEqual(paused.pendingRequest);
      expect(ledger.lines()).toEqual(['lookup:c1', 'refund:c2']);

      // Another process sees the same pause.
      const other = crashDesk(openStore(where), ledgerPath, false).workflow.session('crash-1');
      expect((await other.info()).status).toBe('awaiting_input');

      const done = await session.run(approve('c2'));
      expect(done.status).toBe('awaiting_input');
      expect(done.pendingRequest?.kind).toBe('input');
      expect(counts(ledger.lines())).toEqual({ lookup: 2, refund: 2 });
      expect(ledger.lines().slice(2).sort()).toEqual(['lookup:c1', 'refund:c2']);
      expect(client.calls).toHaveLength(1);
      expect(toolReplies(client.calls[0]!)).toEqual([
        { toolCallId: 'c1', content: 'lookup done' },
        { toolCallId: 'c2', content: 'refunded INV-1' },
      ]);
      const thread = await session.messages();
      expect(types(thread)).toEqual([
        'TextMessage:user',
        'ToolCallRequestEvent:desk',
        'ToolInDoubtEvent:desk',
        'ToolApprovalResponseEvent:user',
        'ToolCallExecutionEvent:desk',
        'TextMessage:desk',
        'UserInputRequestedEvent:desk',
      ]);
      expect(ofType(thread, 'ToolInDoubtEvent')[0]!.content).toEqual([
        call('c2', 'refund', { invoiceId: 'INV-1' }),
      ]);
      expect(ofType(thread, 'TextMessage').at(-1)!.content).toBe(
        'Done: lookup done | refunded INV-1',
      );
    });

    it('reject after the crash: the tool stays at one execution and the model gets the exact error', async () => {
      const where = await place(kind);
      const dir = await mkdtemp(join(tmpdir(), 'baton-effects-ledger-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const ledgerPath = join(dir, 'ledger.txt');
      const ledger = fileLedger(ledgerPath);

      const child = crash(where, ledgerPath, 'crash-2');
      expect(child.signal).toBe('SIGKILL');

      const store = openStore(where);
      cleanups.push(() => store.close());
      const { workflow, client } = crashDesk(store, ledgerPath, false);
      const session = workflow.session('crash-2');
      const paused = await runWhenFree(() => session.run());
      expect(paused.pendingRequest?.kind).toBe('in_doubt');
      const done = await session.run(reject('c2', 'the bank shows it went through'));
      expect(done.pendingRequest?.kind).toBe('input');
      expect(counts(ledger.lines())).toEqual({ lookup: 2, refund: 1 });
      expect(toolReplies(client.calls[0]!)).toEqual([
        { toolCallId: 'c1', content: 'lookup done' },
        { toolCallId: 'c2', content: notRetried('refund', 'the bank shows it went through') },
      ]);
    });
  },
);
