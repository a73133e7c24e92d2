// Hostile tracing: content capture off, failing tools whose errors quote their arguments.
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  Agent,
  type FinishedSpan,
  onSpanEnd,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  TextMessageTermination,
  tool,
} from '../../../src/index.js';
import { installTestTelemetry, type TestTelemetry } from '../../support/otel-sdk.js';

const SECRET = 'ARG-SECRET-7f3a9';

let telemetry: TestTelemetry;
beforeAll(() => {
  delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
  telemetry = installTestTelemetry();
});
afterAll(() => telemetry.shutdown());

describe('OpenTelemetry with content capture off', () => {
  it('a failing tool whose error quotes its arguments leaves no argument text in any span', async () => {
    const local: FinishedSpan[] = [];
    const stop = onSpanEnd((span) => local.push(span));
    const quoting = tool({
      name: 'quoting',
      description: 'Throws with its arguments in the message.',
      parameters: z.object({ card: z.string() }),
      execute: (args) => {
        throw new Error(`cannot process ${JSON.stringify(args)}`);
      },
    });
    const typed = tool({
      name: 'typed',
      description: 'Wants a number.',
      parameters: z.object({ n: z.number() }),
      execute: () => 'never',
    });
    const strict = tool({
      name: 'strict',
      description: 'Only digits.',
      parameters: {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^[0-9]+$', enum: ['1'] } },
        required: ['code'],
      },
      execute: () => 'never',
    });
    const agent = new Agent({
      name: 'worker',
      tools: [quoting, typed, strict],
      maxToolIterations: 2,
      client: new ScriptedChatClient([
        {
          toolCalls: [
            { id: 'c1', name: 'quoting', arguments: JSON.stringify({ card: SECRET }) },
            { id: 'c2', name: 'typed', arguments: JSON.stringify({ n: SECRET }) },
            { id: 'c3', name: 'strict', arguments: JSON.stringify({ code: SECRET }) },
            { id: 'c4', name: 'quoting', arguments: `{"card": "${SECRET}"` }, // not JSON
            { id: 'c5', name: `unknown_${SECRET}`, arguments: JSON.stringify({ card: SECRET }) },
          ],
        },
        scriptedText('sorry'),
      ]),
    });
    const team = new RoundRobinGroupChat([agent], {
      terminationCondition: new TextMessageTermination('worker'),
    });
    const run = await team.run('go');
    stop();
    const results = run.messages.flatMap((m) =>
      m.type === 'ToolCallExecutionEvent' ? m.content : [],
    );
    expect(results.map((r) => r.isError)).toEqual([true, true, true, true, true]);
    expect(results[0]?.content).toContain(SECRET); // the model does see it

    const spans = telemetry.spans();
    const tools = spans.filter((s) => s.name.startsWith('execute_tool'));
    expect(tools.length).toBeGreaterThanOrEqual(4);
    expect(tools.some((s) => s.status.code === 'error')).toBe(true);
    for (const span of spans) {
      expect(JSON.stringify(span.attributes), span.name).not.toContain(SECRET);
      expect(JSON.stringify(span.events), span.name).not.toContain(SECRET);
      expect(JSON.stringify(span.status), span.name).not.toContain(SECRET);
    }
    expect(local.length).toBeGreaterThan(0);
    expect(JSON.stringify(local)).not.toContain(SECRET);
  });

  it('a model client whose error quotes the prompt leaves no prompt text in any span', async () => {
    await telemetry.clear();
    const leaky = {
      create: (request: { messages: unknown[] }) =>
        Promise.reject(new Error(`provider rejected: ${JSON.stringify(request.messages)}`)),
    };
    const agent = new Agent({ name: 'talker', client: leaky as never });
    const team = new RoundRobinGroupChat([agent], {
      terminationCondition: new TextMessageTermination('talker'),
    });
    const error = await team.run(`my card is ${SECRET}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const spans = telemetry.spans();
    expect(spans.length).toBeGreaterThan(0);
    for (const span of spans) {
      expect(JSON.stringify(span.attributes), span.name).not.toContain(SECRET);
      expect(JSON.stringify(span.events), span.name).not.toContain(SECRET);
      expect(JSON.stringify(span.status), span.name).not.toContain(SECRET);
    }
  });
});
