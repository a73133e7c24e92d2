// Shared builders for the independent approvals suite (public API only).
import { z } from 'zod';

import type { AgentMessage, FunctionCall, ModelResult } from '../../../src/index.js';
import { tool } from '../../../src/index.js';

/** A scripted model step that calls several tools in one response. */
export function calls(...list: [id: string, name: string, args: unknown][]): ModelResult {
  return {
    content: null,
    toolCalls: list.map(([id, name, args]) => ({ id, name, arguments: JSON.stringify(args) })),
    usage: { promptTokens: 0, completionTokens: 0 },
  };
}

export function call(id: string, name: string, args: unknown): FunctionCall {
  return { id, name, arguments: JSON.stringify(args) };
}

/** A refund tool that needs approval and counts its executions and the ctx.callId it saw. */
export function refundTool(
  needsApproval: boolean | ((args: { invoiceId: string }) => boolean | Promise<boolean>) = true,
) {
  const runs: { invoiceId: string; callId: string | undefined }[] = [];
  const refund = tool({
    name: 'refund',
    description: 'Refunds an invoice.',
    parameters: z.object({ invoiceId: z.string() }),
    needsApproval,
    execute: async ({ invoiceId }, ctx) => {
      runs.push({ invoiceId, callId: (ctx as { callId?: string }).callId });
      return `refunded ${invoiceId}`;
    },
  });
  return { refund, runs };
}

export function lookupTool() {
  const runs: string[] = [];
  const lookup = tool({
    name: 'lookup',
    description: 'Looks an invoice up.',
    parameters: z.object({ invoiceId: z.string() }),
    execute: async ({ invoiceId }) => {
      runs.push(invoiceId);
      return `${invoiceId}: $80`;
    },
  });
  return { lookup, runs };
}

/** The tool messages (role "tool") of a recorded model request, as {id, content}. */
export function toolReplies(request: {
  messages: unknown[];
}): { toolCallId: string; content: string }[] {
  return (request.messages as { role: string; toolCallId?: string; content?: string }[])
    .filter((m) => m.role === 'tool')
    .map((m) => ({ toolCallId: m.toolCallId ?? '', content: m.content ?? '' }));
}

export const types = (messages: readonly AgentMessage[]) => messages.map((m) => m.type);

export function ofType<T extends AgentMessage['type']>(
  messages: readonly AgentMessage[],
  type: T,
): Extract<AgentMessage, { type: T }>[] {
  return messages.filter((m) => m.type === type) as Extract<AgentMessage, { type: T }>[];
}
