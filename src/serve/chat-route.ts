import type { Hono } from 'hono';
import { z } from 'zod';

import type { Task } from '../engine/runnable.js';
import { fieldOf } from '../unknown-value.js';
import { badRequest } from './http-error.js';
import { checked, type Decision, decisionsTask, IdSchema } from './input-shapes.js';
import { readJsonBody } from './request-body.js';
import { admit, sessionOnFirstUse, startIfOwned, visibleTo } from './session-access.js';
import { threadUiMessages } from './ui-messages.js';
import { liveFeed, openEvents } from '../engine/feed/log-feed.js';
import type { ServeContext, ServeEnv } from './serve-context.js';
import { sseResponse } from './sse-response.js';
import {
  UI_MESSAGE_STREAM_HEADERS,
  UiMessageEncoder,
  uiMessageFrames,
} from './ui-message-encoder.js';

const PartSchema = z.looseObject({ type: z.string() });
const ChatBodySchema = z.looseObject({
  id: IdSchema,
  messages: z
    .array(z.looseObject({ id: z.string(), role: z.string(), parts: z.array(PartSchema) }))
    .min(1),
  trigger: z.string().optional(),
});

type ChatInput = { text: string } | { decisions: Decision[]; messageId: string };

/** The input of a `useChat` request: the last user message's text, or the approval responses. */
function chatInput(body: z.infer<typeof ChatBodySchema>): ChatInput {
  const at = body.messages.length - 1;
  const last = body.messages[at];
  // The schema asks for one message at least: this only tells the compiler so.
  if (last === undefined) throw badRequest('body.messages', 'needs a message');
  if (last.role === 'user') {
    const text = last.parts
      .flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []))
      .join('');
    if (text === '')
      throw badRequest(`body.messages[${at}].parts`, 'the user message has no text part');
    return { text };
  }
  const decisions: Decision[] = [];
  for (const part of last.parts) {
    if (part.state !== 'approval-responded' || part.approval === undefined) continue;
    const id = fieldOf(part.approval, 'id');
    const approved = fieldOf(part.approval, 'approved');
    const reason = fieldOf(part.approval, 'reason');
    if (typeof id !== 'string' || typeof approved !== 'boolean') {
      throw badRequest(
        `body.messages[${at}].parts`,
        'an approval response needs {id: string, approved: boolean}',
      );
    }
    decisions.push({
      callId: id,
      approve: approved,
      reason: typeof reason === 'string' ? reason : undefined,
    });
  }
  if (decisions.length === 0) {
    throw badRequest(
      `body.messages[${at}]`,
      'the last message is neither a user message nor approval responses',
    );
  }
  return { decisions, messageId: last.id };
}

/**
 * The AI SDK routes: `POST /chat` (the `useChat` transport; the session is created on first use)
 * and `GET /chat/:id/stream` (its reconnect: 204 when nothing runs, else the live run's stream
 * from its start).
 */
export function chatRoutes(app: Hono<ServeEnv>, ctx: ServeContext): void {
  const { options } = ctx;

  app.post('/chat', async (c) => {
    const body = checked(ChatBodySchema, await readJsonBody(c.req.raw, options.maxBodyBytes));
    // Every check of the body comes first: a refused body takes no place in the line.
    const input = chatInput(body);
    const id = body.id;
    // The request's place among the session's inputs: the order the bodies were read, taken
    // before anything else is awaited, and given back (`done()`) whatever happens next.
    const turn = ctx.arrivals.take(id);
    let known: string[] = [];
    let live;
    try {
      const principal = c.get('principal');
      const hub = await ctx.hub(principal);
      // Queued for workers, the first of them creates the session before the others look.
      if (hub.dispatched) await turn.ready;
      // A text input to a session of the principal's: the run checks the owner as it takes its
      // lease (one round trip for the checks). Else (first use, decisions) the session first.
      if ('text' in input && options.busy === 'reject' && hub.opensOwned) {
        live = await startIfOwned(hub, principal, id, input.text);
      }
      let owns = true;
      if (live === undefined)
        owns = await sessionOnFirstUse(hub, principal, id, !('text' in input));
      live ??= await admit(
        hub,
        id,
        options.busy,
        async () => {
          let task: Task;
          if ('text' in input) task = input.text;
          else {
            const pending = (await hub.session(id).info()).pendingRequest;
            known = (pending?.calls ?? []).map((call) => call.id);
            task = decisionsTask(
              input.decisions,
              pending,
              `body.messages[${body.messages.length - 1}].parts.approval`,
              { principal, owns },
            );
          }
          return hub.start(id, task, { principal });
        },
        undefined,
        turn,
      );
    } finally {
      turn.done();
    }
    const messageId = 'text' in input ? `${id}:${live.base.step + 1}` : input.messageId;
    const leave = new AbortController();
    const encoder = new UiMessageEncoder(messageId, known);
    return sseResponse(
      uiMessageFrames(liveFeed(live, leave.signal), encoder),
      leave,
      UI_MESSAGE_STREAM_HEADERS,
    );
  });

  app.get('/chat/:id/messages', async (c) => {
    const principal = c.get('principal');
    const hub = await ctx.hub(principal);
    const id = c.req.param('id');
    await visibleTo(hub, principal, id);
    return c.json(threadUiMessages(id, await hub.views(id)));
  });

  app.get('/chat/:id/stream', async (c) => {
    const principal = c.get('principal');
    const hub = await ctx.hub(principal);
    const id = c.req.param('id');
    // A chat not made yet runs nothing (`useChat({ resume: true })` on a new chat): 204. A session
    // this principal may not see does not exist for it: 404.
    if (!(await hub.tenancy.exists(id))) return c.body(null, 204);
    await visibleTo(hub, principal, id);
    const live = hub.live(id);
    const leave = new AbortController();
    const events = await openEvents(hub.feed, id, undefined, leave.signal);
    if (events === undefined) return c.body(null, 204);
    const start = live?.base.step ?? (await hub.session(id).info()).step;
    const encoder = new UiMessageEncoder(`${id}:${start + 1}`);
    return sseResponse(uiMessageFrames(events, encoder), leave, UI_MESSAGE_STREAM_HEADERS);
  });
}
