import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A span as OTLP/JSON carries it (only the fields the test reads). */
interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

/** An OTLP/HTTP receiver on 127.0.0.1 that keeps every span posted to /v1/traces. */
function startReceiver(): Promise<{
  server: Server;
  url: string;
  spans: OtlpSpan[];
  paths: string[];
}> {
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
      };
      for (const resource of body.resourceSpans) {
        for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}`, spans, paths });
    });
  });
}

/** Runs a sample as a user would, without blocking this process (the receiver answers here). */
function runSample(
  name: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `samples/${name}.ts`], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const attribute = (span: OtlpSpan | undefined, key: string) =>
  span?.attributes.find((a) => a.key === key)?.value.stringValue;

describe('samples/tracing.ts', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => new Promise<void>((resolve) => receiver.server.close(() => resolve())));

  it('prints the spans and exports them over OTLP/HTTP to the receiver', async () => {
    const run = await runSample('tracing', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('[span] invoke_workflow support-desk (');
    expect(run.stdout).toContain(
      'baton.stop_reason="Text \'bye\' mentioned" baton.termination{"baton.stop_reason":"Text \'bye\' mentioned"}',
    );
    expect(run.stdout).toContain(`Spans exported to ${receiver.url}/v1/traces.`);

    expect(receiver.paths.every((p) => p === 'POST /v1/traces application/json')).toBe(true);
    const { spans } = receiver;
    expect(spans.map((s) => s.name).sort()).toEqual(
      [
        ...Array(3).fill('invoke_workflow support-desk'),
        ...Array(2).fill('invoke_agent triage'),
        ...Array(2).fill('invoke_agent billing'),
        ...Array(6).fill('chat'),
        'execute_tool lookup_invoice',
        'execute_tool refund_duplicate_charge',
      ].sort(),
    );
    const runs = spans.filter((s) => s.name === 'invoke_workflow support-desk');
    expect(runs.map((s) => attribute(s, 'gen_ai.conversation.id'))).toEqual([
      'sample',
      'sample',
      'sample',
    ]);
    expect(runs.map((s) => attribute(s, 'baton.run.status')).sort()).toEqual([
      'awaiting_input',
      'awaiting_input',
      'terminated',
    ]);
    // Each tool execution sits in billing's turn, inside a run of the same trace.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const toolSpan of spans.filter((s) => s.name.startsWith('execute_tool'))) {
      const turn = byId.get(toolSpan.parentSpanId ?? '');
      expect(turn?.name).toBe('invoke_agent billing');
      expect(byId.get(turn?.parentSpanId ?? '')?.name).toBe('invoke_workflow support-desk');
      expect(turn?.traceId).toBe(toolSpan.traceId);
    }
  });
});
