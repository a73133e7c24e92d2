// Small helpers shared by the termination scenario suites. They use only the public entry.
import { expect } from 'vitest';

import {
  type AgentMessage,
  type FunctionCall,
  type FunctionExecutionResult,
  handoffMessage,
  type StopMessage,
  stopMessage,
  TerminatedError,
  textMessage,
  toolCallExecutionEvent,
  toolCallRequestEvent,
} from '../../src/index.js';

/** The part of a StopMessage a condition decides: compare it whole with `toEqual`. */
export interface StopSummary {
  type: string;
  content: string;
  source: string;
}

export function summary(result: StopMessage | null): StopSummary | null {
  if (result === null) return null;
  return { type: result.type, content: result.content, source: result.source };
}

export function stop(content: string, source: string): StopSummary {
  return { type: 'StopMessage', content, source };
}

/** Calls `run` and returns what it threw, failing when it returns normally. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('Expected the call to throw, but it returned normally.');
}

/**
 * Returns the reason the promise from `run` rejected. A synchronous throw is a contract breach
 * (API.md: check "returns a promise rejected with TerminatedError"), so it is reported as such.
 */
export async function rejectionOf(run: () => Promise<unknown>): Promise<unknown> {
  let promise: Promise<unknown>;
  try {
    promise = run();
  } catch (error) {
    throw new Error(`Expected a rejected promise, but the call threw synchronously: ${error}`, {
      cause: error,
    });
  }
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject, but it resolved.');
}

export async function expectTerminatedError(run: () => Promise<unknown>): Promise<void> {
  const error = await rejectionOf(run);
  expect(error).toBeInstanceOf(TerminatedError);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).name).toBe('TerminatedError');
  expect((error as Error).message).toBe('Termination condition has already been reached');
}

export const text = (content: string, source = 'writer', usage?: [number, number]) =>
  usage === undefined
    ? textMessage({ source, content })
    : textMessage({
        source,
        content,
        usage: { promptTokens: usage[0], completionTokens: usage[1] },
      });

export const stopMsg = (content: string, source = 'writer') => stopMessage({ source, content });

export const handoff = (source: string, target: string, content = `Transferred to ${target}.`) =>
  handoffMessage({ source, target, content });

export const call = (name: string, args = '{}', id = `call_${name}`): FunctionCall => ({
  id,
  name,
  arguments: args,
});

export const result = (name: string, content = 'ok', callId = `call_${name}`) =>
  ({ callId, name, content, isError: false }) satisfies FunctionExecutionResult;

export const requestEvent = (source: string, calls: FunctionCall[], usage?: [number, number]) =>
  usage === undefined
    ? toolCallRequestEvent({ source, content: calls })
    : toolCallRequestEvent({
        source,
        content: calls,
        usage: { promptTokens: usage[0], completionTokens: usage[1] },
      });

export const executionEvent = (source: string, results: FunctionExecutionResult[]) =>
  toolCallExecutionEvent({ source, content: results });

/** JSON round trip, as a checkpoint store would do it. */
export const viaJSON = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export type Delta = readonly AgentMessage[];
