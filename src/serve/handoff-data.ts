import type { HandoffMessage } from '../messages/message.js';

/** What the wires say of a handoff: who handed off to whom, and the brief (when it has one). */
export function handoffData(m: HandoffMessage): { from: string; to: string; brief?: unknown } {
  return m.brief === undefined
    ? { from: m.source, to: m.target }
    : { from: m.source, to: m.target, brief: m.brief };
}
