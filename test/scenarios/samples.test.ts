import { spawnSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

/** Runs a sample as a user would (`npx tsx samples/<name>.ts`) and returns what it printed. */
function runSample(name: string): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', `samples/${name}.ts`], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout;
}

describe('samples', () => {
  it('termination.ts stops on APPROVE, then on APPROVE and FINAL together', () => {
    const out = runSample('termination');
    const [first, second] = out.split('== Run 2');
    expect(first).toContain('---------- TextMessage (critic) ----------\nMuch better. APPROVE\n');
    expect(first).toMatch(/Number of messages: 5\nFinish reason: Text 'APPROVE' mentioned\n/);
    expect(second).toMatch(
      /Number of messages: 3\nFinish reason: Text 'FINAL' mentioned, Text 'APPROVE' mentioned\n/,
    );
  });

  it('escalation.ts stops when billing escalates and continues with technical', () => {
    const out = runSample('escalation');
    expect(out).toContain(
      'payment_log: INV-1002: 3 attempts, all failed with "gateway timeout (504)"',
    );
    expect(out).toContain('Stopped for review: Handoff to technical from billing detected.');
    expect(out).toContain(
      'technical asks the user: The payment gateway timed out; I restarted it. Please try paying INV-1002 again.',
    );
  });

  it('support-desk.ts looks the invoice up, refunds it after the user agrees, and stops on bye', () => {
    const out = runSample('support-desk');
    expect(out).toContain('INV-1001 ($49) was charged twice. Shall I refund the duplicate?');
    expect(out).toContain('refund_duplicate_charge: {"invoiceId":"INV-1001","refunded":49}');
    expect(out).toContain("[terminated: Text 'bye' mentioned]");
    expect(out).toContain('INV-1001 is now charged 1 time(s).');
  });

  it('writer-critic.ts stops at 3 messages and resumes, stops on APPROVE, and on the approve tool', () => {
    const out = runSample('writer-critic');
    const [first, second, third] = out.split(/== \d\. /).slice(1);
    expect(first).toMatch(
      /Number of messages: 3\nFinish reason: Maximum number of messages 3 reached, current message count: 3\n[\s\S]*-- run\(\) with no task[\s\S]*---------- TextMessage \(writer\) ----------\nMaple leaves drifting/,
    );
    expect(second).toMatch(
      /Number of messages: 7\nFinish reason: Text 'APPROVE' mentioned\nTotal prompt tokens: 270\n/,
    );
    expect(third).toContain('approve: Approved.');
    expect(third).toMatch(/Finish reason: Function 'approve' was executed.\n/);
  });

  it("travel-swarm.ts hands off to the user, stops, and resumes with the user's handoff", () => {
    const out = runSample('travel-swarm');
    expect(out).toContain('Finish reason: Handoff to user from flights_refunder detected.');
    expect(out).toContain(
      '---------- HandoffMessage (user) ----------\nThe reference is BA-2417.\n',
    );
    expect(out).toContain("Finish reason: Text 'TERMINATE' mentioned");
    expect(out).toContain('Refunded: BA-2417');
  });

  it('lazy-routing.ts classifies once, lets billing answer directly, and reroutes on the phrase', () => {
    const out = runSample('lazy-routing');
    expect(out).toContain(
      'user> It is INV-7, please refund it\n---------- TextMessage (billing) ----------\nRefunded INV-7.\n',
    );
    expect(out).toContain(
      '---------- TextMessage (billing) ----------\nThis is outside my area: let me find the right person.\n---------- HandoffMessage (triage) ----------\nTransferred to tech, adopting the role of tech immediately.\n',
    );
    expect(out).toContain('Model calls for 4 user turns: 7 (triage 2).');
  });

  it('mcp-files.ts reads the files the user asks about through the MCP filesystem server', () => {
    const out = runSample('mcp-files');
    expect(out).toContain(
      '---------- ToolCallRequestEvent (archivist) ----------\nfiles_list_directory({"path":"."})\n' +
        '---------- ToolCallExecutionEvent (archivist) ----------\n' +
        'files_list_directory: [FILE] on-call.md\n[FILE] release-checklist.md\n',
    );
    expect(out).toContain(
      '---------- TextMessage (archivist) ----------\nHere it is:\n# Release checklist\n\n' +
        '1. Freeze main on Thursday at noon.\n',
    );
    expect(out).toContain(
      'files_read_text_file({"path":"on-call.md"})\n---------- ToolCallExecutionEvent (archivist) ' +
        '----------\nfiles_read_text_file: # On call\n\nThis week: Ada (primary), Grace (backup).\n',
    );
    expect(out).toContain("[terminated: Text 'bye' mentioned]");
  });

  it('structured-resolver.ts routes by structured output without tools, or answers itself', () => {
    const out = runSample('structured-resolver');
    expect(out).toContain(
      '---------- StructuredMessage (triage) ----------\n{"route":"none","reply":"Hello! Billing or technical?"}\n',
    );
    expect(out).toContain(
      '---------- TextMessage (billing) ----------\nI have refunded the duplicate charge.\n',
    );
    expect(out).toContain('The router was offered 0 tools and this output format:');
  });
  it('review-graph.ts loops writer and critic until APPROVE, translates twice at once, then summarizes', () => {
    const out = runSample('review-graph');
    expect(out).toContain('  critic -->|"REVISE"| writer\n');
    const order = [...out.matchAll(/---------- TextMessage \((\w+)\) ----------/g)].map(
      (m) => m[1],
    );
    expect(order).toEqual([
      'user',
      'writer',
      'critic',
      'writer',
      'critic',
      'translator_french',
      'translator_german',
      'summary',
    ]);
    expect(out).toContain('Approved after 2 drafts; translated into 2 languages.\n');
    expect(out).toContain('Stop reason: Digraph execution is complete\nThread: 8 messages\n');
  });

  it('nested-desk.ts hands off to a nested team whose messages stream and whose answer is recorded', () => {
    const out = runSample('nested-desk');
    expect(out).toContain(
      '---------- TextMessage (fact_checker) ----------\nVerified: Water boils at 100 °C at sea level (about 93 °C at 2,000 m).\n---------- TextMessage (research) ----------\nVerified: Water boils at 100 °C',
    );
    expect(out).toContain(
      'Desk thread: TextMessage(user), ToolCallRequestEvent(triage), ToolCallExecutionEvent(triage), HandoffMessage(triage), TextMessage(research), UserInputRequestedEvent(research)\n',
    );
  });
});
