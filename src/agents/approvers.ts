import { ConfigError } from '../errors.js';
import type {
  AgentEvent,
  FunctionCall,
  ToolApprovalRequestEvent,
  ToolInDoubtEvent,
} from '../messages/message.js';
import type { AgentPause } from './chat-agent.js';

/**
 * Who sends a request or makes a decision: an id, the tenant it belongs to, and the roles it holds
 * there (a supervisor, an operator of the desk). What `serve()`'s `authenticate` answers, and what
 * `run(..., { principal })` names as the decider in-process.
 */
export interface Principal {
  readonly id: string;
  /** The tenant (company, workspace) the principal acts in. @default none */
  readonly tenant?: string;
  /** The roles it holds in its tenant, e.g. `["supervisor"]`. @default none */
  readonly roles?: readonly string[];
}

/** What a tool (or a principal) has to say about who may decide: the roles, checked once. */
export function checkedApprovers(
  tool: string,
  approvers: unknown,
  needsApproval: unknown,
): readonly string[] | undefined {
  if (approvers === undefined) return undefined;
  const roles: unknown = typeof approvers === 'string' ? [approvers] : approvers;
  if (!isRoleList(roles)) {
    throw new ConfigError(
      `Tool "${tool}" needs \`approvers\` to be a role or a non-empty list of roles, e.g. ` +
        `"supervisor" or ["supervisor", "manager"], got ${JSON.stringify(approvers)}.`,
      { path: 'approvers' },
    );
  }
  if (needsApproval === false) {
    throw new ConfigError(
      `Tool "${tool}" names \`approvers\` but its calls need no approval; set ` +
        '`needsApproval: true` (or a function), or leave `approvers` out.',
      { path: 'approvers' },
    );
  }
  return Object.freeze([...new Set(roles)]);
}

function isRoleList(value: unknown): value is readonly string[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((r) => typeof r === 'string' && r !== '')
  );
}

/**
 * The roles that may decide a request for `calls`: every role named by the approvers of their
 * tools, in the order first named; undefined when none of the tools names approvers (the session's
 * owner, or the application, decides).
 */
export function waitingForOf(
  calls: readonly FunctionCall[],
  tools: ReadonlyMap<string, { readonly approvers?: readonly string[] | undefined }>,
): readonly string[] | undefined {
  const roles = new Set<string>();
  for (const call of calls)
    for (const role of tools.get(call.name)?.approvers ?? []) roles.add(role);
  return roles.size === 0 ? undefined : [...roles];
}

/** True when `principal` holds one of `roles`. */
export function holdsRole(principal: Principal, roles: readonly string[]): boolean {
  return (principal.roles ?? []).some((r) => roles.includes(r));
}

/**
 * The error of a decision made by a principal that holds none of the roles the request waits for.
 * A `ConfigError` (the caller passed a decider that may not decide), naming the field `principal`.
 */
export function notApprover(
  sessionId: string,
  principal: Principal,
  waitingFor: readonly string[],
): ConfigError {
  const roles = waitingFor.map((r) => `"${r}"`).join(' or ');
  return new ConfigError(
    `run(): principal "${principal.id}" may not decide the request of session "${sessionId}": ` +
      `it waits for a principal with the role ${roles}. Let one of those decide, or decide ` +
      'without a principal as the application itself.',
    { path: 'principal' },
  );
}

/** The principal as a decision records it in `metadata.principal`: its id and roles. */
export function principalRecord(principal: Principal): { id: string; roles: string[] } {
  return { id: principal.id, roles: [...(principal.roles ?? [])] };
}

/** An agent's pause on `event`, naming the roles that may decide it when its tools name any. */
export function pauseOf(
  event: ToolApprovalRequestEvent | ToolInDoubtEvent,
  innerMessages: AgentEvent[],
  tools: ReadonlyMap<string, { readonly approvers?: readonly string[] | undefined }>,
): AgentPause {
  const waitingFor = waitingForOf(event.content, tools);
  return waitingFor === undefined
    ? { approvalRequest: event, innerMessages }
    : { approvalRequest: event, innerMessages, waitingFor };
}
