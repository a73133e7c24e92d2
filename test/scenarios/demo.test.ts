import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';
import { type DemoTerminal, runDemo } from '../../src/cli/demo.js';
import { createSupportDesk } from '../../src/cli/demo-desk.js';
import { OfflineDeskModel } from '../../src/cli/demo-model.js';

function scriptedTerminal(lines: string[]): DemoTerminal & { output: () => string } {
  const written: string[] = [];
  const queue = [...lines];
  return {
    color: false,
    echoInput: true,
    write: (text) => written.push(text),
    onInterrupt: () => {},
    ask: async () => queue.shift() ?? null,
    output: () => written.join(''),
  };
}

const offlineEnv = { PATH: process.env.PATH ?? '' };
const root = resolve(import.meta.dirname, '../..');
const scratch = () => mkdtempSync(join(tmpdir(), 'baton-demo-'));

/** Runs `baton demo` as `npm start` does, in `cwd`, with piped input. */
function demo(args: string[], input: string, cwd = scratch()) {
  const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');
  return spawnSync(
    process.execPath,
    ['--import', tsx, join(root, 'src/cli/main.ts'), 'demo', ...args],
    {
      input,
      cwd,
      env: offlineEnv,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
}

describe('baton demo', () => {
  it('plays the whole desk offline: handoffs, escalation, tools, pauses and a stop', async () => {
    const terminal = scriptedTerminal([
      'I was charged twice for invoice INV-1001',
      'yes please',
      'My payment page shows an error in the app',
      'yes open a ticket',
      'bye',
      'never read',
    ]);
    expect(await runDemo(terminal, { env: offlineEnv, storeDirectory: scratch() })).toBe(0);
    const out = terminal.output();
    expect(out).toContain('the agents run on the built-in OFFLINE model');
    expect(out).toContain(
      'lookup_invoice: {"invoiceId":"INV-1001","customer":"Ada Byron","amount":"$49.00","timesCharged":2,"refunded":"$0.00"}',
    );
    expect(out).toContain('Done: $49.00 refunded on INV-1001 (refund R-1001-1).');
    // triage → billing, then billing escalates to technical along its addHandoff edge.
    expect(out).toContain(
      '---------- HandoffMessage (billing) ----------\nTransferred to technical, adopting the role of technical immediately.\n',
    );
    expect(out).toContain('check_service_status({"service":"app"})');
    expect(out).toContain('Ticket T-1001 is open for app');
    expect(out).toMatch(
      /---------- Summary ----------\nNumber of messages: \d+\nFinish reason: The user said goodbye\n/,
    );
    expect(out).not.toContain('never read');
    // A clean transcript: no internal event names, each answer once, a pause as one short line.
    expect(out).not.toMatch(/ModelClientStreamingChunkEvent|UserInputRequestedEvent/);
    expect(out).not.toContain('ToolCallRequestEvent (triage)');
    expect(out.split('Done: $49.00 refunded on INV-1001').length - 1).toBe(1);
    expect(out).toContain(
      '---------- TextMessage (billing) ----------\nInvoice INV-1001 ($49.00) was charged 2 times. Shall I refund the duplicate charge?\n',
    );
    expect(out).toContain('(billing awaits your reply)\nyou> yes please\n');
    expect(out).not.toContain('---------- TextMessage (user) ----------');
  });

  it('sends a cancellation to the account specialist and ends on the goodbye, not on "goodbye" inside it', async () => {
    const terminal = scriptedTerminal([
      'I want to cancel my account and say goodbye to your service',
      'ada@example.com',
      'Thanks, goodbye!',
      'never read',
    ]);
    expect(await runDemo(terminal, { env: offlineEnv, storeDirectory: scratch() })).toBe(0);
    const out = terminal.output();
    expect(out).toContain(
      '---------- HandoffMessage (triage) ----------\nTransferred to account, adopting the role of account immediately.\n',
    );
    expect(out).toContain(
      '---------- TextMessage (account) ----------\nI can close your account. Which email address is it registered under?\n',
    );
    expect(out).toContain('close_account: {"email":"ada@example.com","closed":true}');
    expect(out).toMatch(/Number of messages: 15\nFinish reason: The user said goodbye\n/);
    expect(out).not.toContain('never read');
  });

  it('exits with 130 when Ctrl-C stops it', async () => {
    let interrupt = () => {};
    let asked = 0;
    const written: string[] = [];
    const terminal: DemoTerminal = {
      color: false,
      echoInput: true,
      write: (text) => written.push(text),
      onInterrupt: (handler) => {
        interrupt = handler;
      },
      ask: async () => {
        if (++asked === 1) return 'hello';
        interrupt();
        return null;
      },
    };
    expect(await runDemo(terminal, { env: offlineEnv, storeDirectory: scratch() })).toBe(130);
    expect(written.join('')).toMatch(/Finish reason: stopped with Ctrl-C\n/);
  });

  it('ends cleanly at the end of input, with the summary', async () => {
    const terminal = scriptedTerminal(['hello']);
    expect(await runDemo(terminal, { env: offlineEnv, storeDirectory: scratch() })).toBe(0);
    expect(terminal.output()).toContain(
      'Hello, this is the support desk. Is it about billing, a technical problem or your account?',
    );
    expect(terminal.output()).toMatch(/Number of messages: 3\nFinish reason: end of input\n/);
  });

  it('changes the store through its tools, and reports tool errors to the model', async () => {
    const desk = createSupportDesk((role) => new OfflineDeskModel(role));
    const session = desk.workflow.session();
    const first = await session.run('what about invoice INV-9999');
    expect(first.pendingRequest?.prompt).toBe(
      'That did not work: Tool "lookup_invoice" failed: No invoice INV-9999. Which invoice is it about (e.g. INV-1001)?',
    );
    await session.run('invoice INV-1001 was charged twice');
    await session.run('yes refund it');
    expect(desk.store.invoices.get('INV-1001')).toMatchObject({ charges: 1, refundedCents: 4900 });
    const leaving = desk.workflow.session();
    await leaving.run('Please close my account');
    const closed = await leaving.run('alan@example.com');
    expect(closed.pendingRequest?.agent).toBe('account');
    expect(desk.store.accounts.get('alan@example.com')?.closed).toBe(true);
    expect(desk.store.accounts.get('ada@example.com')?.closed).toBe(false);
  });

  it('asks before a refund over $50: y approves and the refund is paid', async () => {
    const terminal = scriptedTerminal([
      'I was charged twice for invoice INV-1003',
      'yes please',
      'y',
      'bye',
    ]);
    expect(await runDemo(terminal, { env: offlineEnv, storeDirectory: scratch() })).toBe(0);
    const out = terminal.output();
    // The call awaiting approval is shown once: on the line that asks about it.
    expect(out.split('refund_duplicate_charge({"invoiceId":"INV-1003"})')).toHaveLength(2);
    expect(out).toContain(
      '(billing awaits your reply)\nyou> yes please\n' +
        '---------- HandoffMessage (triage) ----------\n' +
        'Transferred to billing, adopting the role of billing immediately.\n' +
        '[Prompt tokens: 226, Completion tokens: 6]\n' +
        'billing wants to run refund_duplicate_charge({"invoiceId":"INV-1003"}). Approve? [y/N] y\n' +
        '---------- ToolCallExecutionEvent (billing) ----------\n',
    );
    expect(out).not.toContain('ToolApprovalRequestEvent');
    expect(out).toContain('Done: $89.00 refunded on INV-1003');
  });

  it('suggests a conversation, on its Try line, that the offline model plays through an approval', async () => {
    const intro = scriptedTerminal([]);
    await runDemo(intro, { env: offlineEnv, storeDirectory: scratch() });
    const tryLine =
      intro
        .output()
        .split('\n')
        .find((line) => line.startsWith('Try: ')) ?? '';
    const suggested = [...tryLine.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
    expect(suggested).toEqual([
      'I was charged twice for invoice INV-1003',
      'yes please',
      'y',
      'my internet keeps dropping',
    ]);
    const terminal = scriptedTerminal([...suggested, 'bye']);
    expect(await runDemo(terminal, { env: offlineEnv, storeDirectory: scratch() })).toBe(0);
    const out = terminal.output();
    expect(out).toContain(
      'billing wants to run refund_duplicate_charge({"invoiceId":"INV-1003"}). Approve? [y/N] y\n',
    );
    expect(out).toContain('Done: $89.00 refunded on INV-1003');
    expect(out).toContain('check_service_status({"service":"internet"})');
    expect(out).toContain('Finish reason: The user said goodbye');
  });

  it('says once, on screen, where it keeps sessions and how to resume this one', async () => {
    const directory = scratch();
    const terminal = scriptedTerminal([]);
    await runDemo(terminal, { env: offlineEnv, storeDirectory: directory, sessionId: 'd1' });
    const out = terminal.output();
    const line = `Sessions are kept in ${directory}/ (made if missing; delete it to forget them). Resume this one with: npx baton demo --session d1`;
    expect(out.split('\n').filter((l) => l.includes(directory))).toEqual([line]);
    const started = scriptedTerminal([]);
    await runDemo(started, {
      env: { ...offlineEnv, npm_lifecycle_event: 'start' },
      storeDirectory: directory,
      sessionId: 'd2',
    });
    expect(started.output()).toContain('Resume this one with: npm start -- --session d2\n');
  });

  it('pays nothing when the refund is refused with n, or with a reply', () => {
    const refused = demo([], 'I was charged twice for invoice INV-1003\nyes please\nn\nbye\n');
    expect(refused.stderr).toBe('');
    expect(refused.stdout).toContain(
      'billing wants to run refund_duplicate_charge({"invoiceId":"INV-1003"}). Approve? [y/N] n\n',
    );
    expect(refused.stdout).toContain('Understood: I did not refund it. Anything else I can do?');
    expect(refused.stdout).not.toContain('refunded on INV-1003');

    const replied = demo(
      [],
      'I was charged twice for invoice INV-1003\nyes please\nwait, ask my manager\nbye\n',
    );
    expect(replied.stdout).toContain('Approve? [y/N] wait, ask my manager\n');
    expect(replied.stdout).toContain(
      'Tool call "refund_duplicate_charge" was rejected by the user: wait, ask my manager',
    );
    expect(replied.stdout).not.toContain('refunded on INV-1003');
  });

  it('runs as `npm start` does, reading piped replies line by line', () => {
    const run = demo([], 'I am locked out of my account\nada@example.com\nbye\n');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('you> ada@example.com\n');
    expect(run.stdout).toContain(
      'I unlocked ada@example.com and sent a password reset link. Anything else?',
    );
    expect(run.stdout).toContain('Finish reason: The user said goodbye');
  });

  it('resumes a saved session with --session, where it paused', () => {
    const cwd = scratch();
    const first = demo(['--session', 'desk-1'], 'I was charged twice for invoice INV-1001\n', cwd);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(
      `Sessions are kept in ${join(cwd, '.baton')}/ (made if missing; delete it to forget them). ` +
        'Resume this one with: npx baton demo --session desk-1\n',
    );
    const second = demo(['--session', 'desk-1'], 'yes please\nbye\n', cwd);
    expect(second.stderr).toBe('');
    expect(second.stdout).toContain(
      'Resuming session desk-1: 8 messages so far (awaiting_input).\n',
    );
    expect(second.stdout).toContain(
      'billing asked: Invoice INV-1001 ($49.00) was charged 2 times. Shall I refund the duplicate charge?\n',
    );
    expect(second.stdout).toContain('refund_duplicate_charge({"invoiceId":"INV-1001"})');
    expect(second.stdout).toMatch(/Number of messages: 17\nFinish reason: The user said goodbye\n/);
  });

  it('refuses --session without an id', () => {
    const run = demo(['--session'], '');
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'baton demo: --session needs an id, e.g. --session 3f2a. Run "baton demo --help".\n',
    );
  });

  it('answers bad arguments with one line and exit code 2', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'dmeo'], {
      env: offlineEnv,
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'baton: unknown command "dmeo": did you mean "demo"? Run "baton --help".\n',
    );
  });
});
