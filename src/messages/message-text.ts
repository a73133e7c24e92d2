import type { AgentMessage } from './message.js';

/**
 * The text a termination condition or a console sees in a message. Tool events show each call as
 * `name(arguments)` and each result as `name: content` (`name (error): content` for failures).
 */
export function messageToText(message: AgentMessage): string {
  switch (message.type) {
    case 'StructuredMessage':
      return typeof message.content === 'string'
        ? message.content
        : JSON.stringify(message.content);
    case 'ToolApprovalRequestEvent':
      return message.content
        .map((call) => `Approval needed: ${call.name}(${call.arguments})`)
        .join('\n');
    case 'ToolInDoubtEvent':
      return message.content
        .map((call) => `In doubt (may or may not have completed): ${call.name}(${call.arguments})`)
        .join('\n');
    case 'ToolApprovalResponseEvent':
      if (message.result !== undefined) return `Resolved call ${message.callId}: ${message.result}`;
      return `${message.approved ? 'Approved' : 'Rejected'} call ${message.callId}${
        message.reason === undefined ? '' : `: ${message.reason}`
      }`;
    case 'ToolCallRequestEvent':
      return message.content.map((call) => `${call.name}(${call.arguments})`).join('\n');
    case 'ToolCallExecutionEvent':
      return message.content
        .map((r) => `${r.name}${r.isError ? ' (error)' : ''}: ${r.content}`)
        .join('\n');
    case 'ToolCallSummaryMessage':
      return message.content;
    case 'SelectSpeakerEvent':
      return message.content.join(', ');
    default:
      return message.content;
  }
}
