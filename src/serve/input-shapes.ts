import { z } from 'zod';

import { holdsRole, type Principal, principalRecord } from '../agents/approvers.js';
import type { PendingRequest } from '../engine/state/session-state.js';
import type { Task } from '../engine/runnable.js';
import { approve, reject, resolve } from '../messages/message-factories.js';
import { ChatMessageSchema } from '../messages/message-schema.js';
import { firstIssue } from '../zod-issues.js';
import { badRequest, HttpError } from './http-error.js';

/**
 * One decision on a call awaiting approval or in doubt: `{callId, approve, reason?}`, or (for a
 * call in doubt) `{callId, result}`, the result it had. On a `"budget"` request,
 * `callId` is the request's id and an approval gives `amountUsd`, the raise in US dollars.
 */
export type Decision =
  | {
      readonly callId: string;
      readonly approve: boolean;
      readonly reason?: string | undefined;
      readonly amountUsd?: number | undefined;
    }
  | { readonly callId: string; readonly result: string };

const DecisionSchema = z
  .strictObject({
    callId: z.string().min(1),
    approve: z.boolean().optional(),
    reason: z.string().optional(),
    result: z.string().optional(),
    amountUsd: z.number().positive().finite().optional(),
  })
  .superRefine((d, ctx) => {
    if (d.result === undefined && d.approve === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['approve'],
        message: 'Invalid input: expected boolean, received undefined',
      });
    } else if (
      d.result !== undefined &&
      (d.approve !== undefined || d.reason !== undefined || d.amountUsd !== undefined)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['result'],
        message: 'give `approve` (and `reason`) or `result`, not both',
      });
    }
  })
  .transform((d): Decision =>
    d.result !== undefined
      ? { callId: d.callId, result: d.result }
      : {
          callId: d.callId,
          approve: d.approve === true,
          reason: d.reason,
          ...(d.amountUsd === undefined ? {} : { amountUsd: d.amountUsd }),
        },
  );

const RunsBodySchema = z.object({
  input: z.union([z.string(), ChatMessageSchema]).optional(),
  decisions: z.array(DecisionSchema).min(1).optional(),
});

/**
 * A session id from a client. Control characters (C0, DEL, C1) and the line separators U+2028 and
 * U+2029 are refused: an id is written into logs, terminal output and generated test files, where
 * such a character would end a line or rewrite what is shown; and the stores' internal keys begin
 * with one, so no client can name them.
 */
const IdSchema = z
  .string()
  .min(1)
  .max(256)
  .superRefine((id, ctx) => {
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    const at = id.search(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    if (at < 0) return;
    const code = id.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0');
    ctx.addIssue({
      code: 'custom',
      message:
        `a session id holds no control characters or line separators; U+${code} is at index ` +
        `${at}. Choose an id of printable characters.`,
    });
  });

const CreateBodySchema = z.object({ id: IdSchema.optional() });

/** A body checked by `schema`, or 400 naming the first bad field (`body.<path>`). */
export function checked<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = firstIssue(parsed.error);
  throw badRequest(
    `body.${issue.path === '(root)' ? '' : issue.path}`.replace(/\.$/, ''),
    issue.text.slice(issue.path.length + 2),
  );
}

/** `POST /sessions`: the id asked for, if any. */
export function createBody(body: unknown): string | undefined {
  return checked(CreateBodySchema, body).id;
}

/** `POST /sessions/:id/runs`: the input and the decisions. */
export function runsBody(body: unknown): { input?: Task; decisions?: Decision[] } {
  const parsed = checked(RunsBodySchema, body);
  if (parsed.input !== undefined && parsed.decisions !== undefined) {
    throw badRequest('body.decisions', 'give `input` or `decisions`, not both');
  }
  return {
    ...(parsed.input === undefined ? {} : { input: parsed.input as Task }),
    ...(parsed.decisions === undefined ? {} : { decisions: parsed.decisions }),
  };
}

/**
 * The decisions of `principal` as a task, checked against the calls awaiting approval: a call id
 * that is not one of them answers 400, and a request that waits for a role `principal` does not
 * hold answers 403 `not_approver` (before anything is run or committed). Each decision records
 * the principal in `metadata.principal`.
 */
export function decisionsTask(
  decisions: readonly Decision[],
  pending: PendingRequest | undefined,
  field: string,
  by: { readonly principal: Principal; readonly owns: boolean },
): Task {
  const { principal } = by;
  const kind = pending?.kind;
  const waiting = kind === 'approval' || kind === 'in_doubt';
  const open = new Set(waiting ? (pending?.calls ?? []).map((c) => c.id) : []);
  // A budget request is decided by its own id; the session checks the amount.
  if (kind === 'budget' && pending !== undefined) open.add(pending.id);
  decisions.forEach((d, i) => {
    if ('result' in d && kind !== 'in_doubt' && open.has(d.callId)) {
      throw badRequest(
        `${field}[${i}].result`,
        `call "${d.callId}" awaits approval, not a result: give \`approve\` instead`,
      );
    }
    if (kind === 'budget' && 'approve' in d && d.approve && d.amountUsd === undefined) {
      throw badRequest(
        `${field}[${i}].amountUsd`,
        'approving a budget request needs `amountUsd`, the US dollars to raise the budget by',
      );
    }
    if (!open.has(d.callId)) {
      throw new HttpError(
        400,
        'unknown_call',
        `${field}[${i}].callId: no call "${d.callId}" awaits a decision` +
          (open.size === 0 ? ' (none does)' : ` (awaiting: ${[...open].join(', ')})`),
      );
    }
  });
  // Without approvers the request is the owner's to answer; an operator who sees it may not.
  const waitingFor = pending?.waitingFor;
  if (waitingFor === undefined ? !by.owns : !holdsRole(principal, waitingFor)) {
    throw notApproverError(principal, waitingFor);
  }
  const metadata = { principal: principalRecord(principal) };
  return decisions.map((d) => {
    const decision =
      'result' in d
        ? resolve(d.callId, d.result)
        : d.approve
          ? approve(d.callId, d.amountUsd === undefined ? {} : { amountUsd: d.amountUsd })
          : reject(d.callId, d.reason);
    return { ...decision, metadata: { ...decision.metadata, ...metadata } };
  });
}

/** 403 for a principal that may not answer a request waiting for `waitingFor` (or its owner). */
export function notApproverError(
  principal: Principal,
  waitingFor: readonly string[] | undefined,
): HttpError {
  const who =
    waitingFor === undefined
      ? "the session's owner"
      : `a principal with the role ${waitingFor.map((r) => `"${r}"`).join(' or ')}`;
  return new HttpError(
    403,
    'not_approver',
    `This request waits for ${who}; "${principal.id}" may not answer it, so nothing was decided.`,
  );
}

/** A query parameter as a non-negative integer, or 400 naming it. */
export function integerParam(
  name: string,
  value: string | undefined,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value) || Number(value) > max) {
    throw badRequest(name, `must be an integer from 0 to ${max}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

export { IdSchema };
