import type { Hono } from 'hono';
import { z } from 'zod';

import type { Task } from '../engine/runnable.js';
import type { PendingRequest } from '../engine/state/session-state.js';
import { fieldOf } from '../unknown-value.js';
import { AgUiEncoder, agUiFrames } from './ag-ui-encoder.js';
import { badRequest, HttpError } from './http-error.js';
import { checked, type Decision, decisionsTask, IdSchema } from './input-shapes.js';
import { readJsonBody } from './request-body.js';
import { admit, sessionOnFirstUse } from './session-access.js';
import type { Principal } from './serve-options.js';
import { liveFeed } from '../engine/feed/log-feed.js';
import type { ServeContext, ServeEnv } from './serve-context.js';
import { type SseFrame, sseResponse } from './sse-response.js';

const ResumeSchema = z.looseObject({
  interruptId: z.string().min(1),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
});

const RunAgentInputSchema = z.looseObject({
  threadId: IdSchema,
  runId: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })),
  resume: z.array(ResumeSchema).optional(),
});

type RunAgentInput = z.infer<typeof RunAgentInputSchema>;

/** The text of an AG-UI message's content (a string, or text parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (p: { type?: unknown; text?: unknown }) => p?.type === 'text' && typeof p.text === 'string',
    )
    .map((p: { text: string }) => p.text)
    .join('');
}

/**
 * The task of an AG-UI request: `resume[]` answers the open interrupts (a call awaiting approval
 * with `{approved, reason?}`, a question with `{text}`); otherwise the last user message. `null`
 * when tool-call interrupts are open and the request does not answer them (the run errs).
 */
function agUiTask(
  input: RunAgentInput,
  pending: PendingRequest | undefined,
  by: { readonly principal: Principal; readonly owns: boolean },
): Task | null {
  const resume = input.resume ?? [];
  if (resume.length > 0) {
    if (pending?.kind === 'input' && resume.length === 1 && resume[0]?.interruptId === pending.id) {
      const text = fieldOf(resume[0].payload, 'text');
      if (resume[0].status === 'resolved') {
        if (typeof text !== 'string') {
          throw badRequest(
            'body.resume[0].payload.text',
            'answer the question with {text: string}',
          );
        }
        return text;
      }
      // Withdrawn ("send a new message instead"): the new user message is the answer.
      const last = input.messages.at(-1);
      const answer = last?.role === 'user' ? textOf(last.content) : '';
      if (answer === '') {
        throw badRequest(
          'body.messages',
          'a question withdrawn with status "cancelled" is answered by a new user message after it',
        );
      }
      return answer;
    }
    const decisions = resume.map((entry, i): Decision => {
      const approved = fieldOf(entry.payload, 'approved');
      const given = fieldOf(entry.payload, 'reason');
      // A call in doubt may also be answered with the result it had.
      const result = fieldOf(entry.payload, 'result');
      if (entry.status === 'resolved' && typeof result === 'string') {
        return { callId: entry.interruptId, result };
      }
      if (entry.status === 'resolved' && typeof approved !== 'boolean') {
        throw badRequest(
          `body.resume[${i}].payload.approved`,
          'answer a tool call with {approved: boolean, reason?} (in doubt also {result: string})',
        );
      }
      const reason =
        typeof given === 'string' ? given : entry.status === 'cancelled' ? 'cancelled' : undefined;
      return {
        callId: entry.interruptId,
        approve: entry.status === 'resolved' && approved === true,
        reason,
      };
    });
    return decisionsTask(decisions, pending, 'body.resume', by);
  }
  if (pending?.kind === 'approval' || pending?.kind === 'in_doubt') return null;
  const i = input.messages.findLastIndex((message) => message.role === 'user');
  const message = input.messages[i];
  if (message === undefined) {
    throw badRequest('body.messages', 'no user message and no resume[] to run');
  }
  const text = textOf(message.content);
  if (text === '') throw badRequest(`body.messages[${i}].content`, 'the user message has no text');
  return text;
}

/** `POST /ag-ui`: AG-UI 1.0 over SSE; `threadId` is the session id, created on first use. */
export function agUiRoute(app: Hono<ServeEnv>, ctx: ServeContext): void {
  const { options } = ctx;
  app.post('/ag-ui', async (c) => {
    const input = checked(RunAgentInputSchema, await readJsonBody(c.req.raw, options.maxBodyBytes));
    // The request's place among the session's inputs: the order the bodies were read, taken
    // before anything else is awaited.
    const id = input.threadId;
    const encoder = new AgUiEncoder(id, input.runId);
    const leave = new AbortController();
    // Given back (`done()`) whatever happens next: nothing may throw between these two lines.
    const turn = ctx.arrivals.take(id);
    let live;
    try {
      const principal = c.get('principal');
      const hub = await ctx.hub(principal);
      // Queued for workers, the first of them creates the session before the others look.
      if (hub.dispatched) await turn.ready;
      const owns = await sessionOnFirstUse(hub, principal, id, (input.resume ?? []).length > 0);
      live = await admit(
        hub,
        id,
        options.busy,
        async () => {
          const info = await hub.session(id).info();
          const task = agUiTask(input, info.pendingRequest, { principal, owns });
          encoder.snapshot = info.state;
          if (task !== null) return hub.start(id, task, { principal });
          return new HttpError(
            409,
            'approvals_pending',
            'Tool calls await a decision: answer their interrupts with resume[] ({approved, reason?}).',
          );
        },
        undefined,
        turn,
      );
    } finally {
      turn.done();
    }
    if (live instanceof HttpError) {
      const frames = encoder
        .refused(live.message, live.code)
        .map((e): SseFrame => ({ data: JSON.stringify(e) }));
      return sseResponse(listed(frames), leave);
    }
    return sseResponse(agUiFrames(liveFeed(live, leave.signal), encoder), leave);
  });
}

async function* listed(frames: readonly SseFrame[]): AsyncGenerator<SseFrame> {
  yield* frames;
}
