import { isDeepStrictEqual } from 'node:util';

import type { AgentPause, AgentResponse } from '../../agents/chat-agent.js';
import type { StatePatchOp } from '../../agents/conversation-state.js';
import type { FunctionCall, FunctionExecutionResult } from '../../messages/message.js';
import type { ModelRequest, ModelResult } from '../../models/chat-client.js';
import type { Recording, RecordedTurn } from './recording.js';
import { changedBrief, refusedBrief } from './replay-briefs.js';

/** Where a replay first differs from its recording. */
export interface Divergence {
  /** The agent turn, counted from 1 over the session (an approval pause stays in its turn). */
  readonly turn: number;
  /** Who spoke at that turn, or should have. */
  readonly agent: string;
  /**
   * What differs: `"speaker"`, `"handoff"`, `"tool_call"`, `"tool_result"`, `"state_update"`,
   * `"approval"`, `"in_doubt"`, `"instructions"`, `"model_calls"`, `"message"`, `"status"`,
   * `"stop_reason"` or `"error"`.
   */
  readonly what: string;
  /** The recorded value. */
  readonly expected: unknown;
  /** The replayed value. */
  readonly actual: unknown;
}

const NO_OPS: readonly StatePatchOp[] = Object.freeze([]);

/** Thrown inside a replayed turn once a divergence is known: the run is cancelled with it. */
export class Diverged extends Error {
  override readonly name = 'Diverged';
}

/**
 * Follows a replay turn by turn against its recording: which turn each agent is in, which of its
 * recorded answers comes next, and the first divergence. `nextRun()` says where the next run
 * must end: a turn beyond it is a divergence (or, when the recorded run was cancelled there, the
 * cancel itself).
 */
export class ReplayController {
  readonly recording: Recording;
  #started = 0;
  readonly #inFlight = new Map<string, number>();
  readonly #used: number[] = [];
  readonly #paused = new Set<number>();
  /** Turns that paused with calls in doubt, and the calls in doubt whose run was cut off. */
  readonly #doubted = new Set<number>();
  readonly #lost = new Set<string>();
  #cutOff = false;
  readonly #spoke = new Set<string>();
  #divergence: Divergence | undefined;
  #abort = new AbortController();
  /** Where the current run ends and how (`cancelled`: the recorded run was cut off there). */
  #end: { turns: number; status: string } = { turns: 0, status: 'cancelled' };
  /** Per `Agent` (whose model is replayed), its instructions, for an `instructions` divergence. */
  readonly #instructions = new Map<string, string | undefined>();
  /** Per `Agent` (whose model is replayed), the SHA-256 of its instructions, if it has any. */
  readonly #digests: ReadonlyMap<string, string | undefined>;

  constructor(recording: Recording, digests: ReadonlyMap<string, string | undefined>) {
    this.recording = recording;
    this.#digests = digests;
  }

  get divergence(): Divergence | undefined {
    return this.#divergence;
  }

  /** Agent turns begun so far. */
  get started(): number {
    return this.#started;
  }

  /** The speaker of the next recorded turn (a selector's recorded choice). */
  nextSpeaker(): string {
    const turn = this.recording.turns[this.#started] ?? this.recording.turns.at(-1);
    return turn?.agent ?? this.recording.participants[0]?.name ?? '';
  }

  /** A signal for the next run; `end` is where it should stop and how. */
  nextRun(end: { turns: number; status: string }): AbortSignal {
    this.#end = end;
    this.#cutOff = false;
    this.#abort = new AbortController();
    return this.#abort.signal;
  }

  /** Notes the first divergence and cancels the run; returns the error that ends the turn. */
  diverge(divergence: Divergence): Diverged {
    this.#divergence ??= divergence;
    this.#abort.abort();
    return new Diverged(`${divergence.what} at turn ${divergence.turn}`);
  }

  /** `agent` takes the floor: it continues its paused turn, or begins the next recorded one. */
  begin(agent: string): void {
    if (this.#divergence !== undefined) throw new Diverged('replay diverged');
    if (this.#inFlight.has(agent)) return;
    const index = this.#started;
    const turns = this.recording.turns;
    if (index >= this.#end.turns) {
      const last = turns[this.#end.turns - 1];
      if (this.#end.status === 'cancelled' || last === undefined) {
        this.#abort.abort();
        throw new Diverged('the recorded run was cancelled here');
      }
      throw this.diverge({
        turn: this.#end.turns,
        agent: last.agent,
        what: 'status',
        expected: this.#end.status,
        actual: 'running',
      });
    }
    const expected = turns[index];
    if (expected === undefined || expected.agent !== agent) {
      throw this.diverge({
        turn: index + 1,
        agent: expected?.agent ?? agent,
        what: 'speaker',
        expected: expected?.agent ?? null,
        actual: agent,
      });
    }
    if (!this.#spoke.has(agent)) {
      this.#spoke.add(agent);
      const recorded = this.recording.participants.find((p) => p.name === agent);
      const digest = this.#digests.get(agent);
      if (recorded !== undefined && recorded.instructionsDigest !== digest) {
        throw this.diverge({
          turn: index + 1,
          agent,
          what: 'instructions',
          expected: recorded.instructions ?? null,
          actual: this.#instructions.get(agent) ?? null,
        });
      }
    }
    this.#inFlight.set(agent, index);
    this.#started = index + 1;
  }

  /** Notes the instructions `agent` (an `Agent`) has in the workflow replayed. */
  setInstructions(agent: string, instructions: string | undefined): void {
    this.#instructions.set(agent, instructions);
  }

  /** True for an `Agent`, whose model the replay answers for. */
  isAgent(agent: string): boolean {
    return this.#instructions.has(agent);
  }

  /** The instructions `agent` has in the workflow replayed. */
  instructionsOf(agent: string): string | undefined {
    return this.#instructions.get(agent);
  }

  /** The recorded turn `agent` is in (and its index), or a divergence when it is in none. */
  #current(agent: string): [number, RecordedTurn] {
    const index = this.#inFlight.get(agent);
    const turn = index === undefined ? undefined : this.recording.turns[index];
    if (index === undefined || turn === undefined) {
      throw this.diverge({
        turn: this.#started,
        agent,
        what: 'speaker',
        expected: null,
        actual: agent,
      });
    }
    return [index, turn];
  }

  /** The next recorded model answer of `agent`'s turn, checked against what it was offered. */
  answer(agent: string, request: ModelRequest): ModelResult {
    const [index, turn] = this.#current(agent);
    const k = this.#used[index] ?? 0;
    this.#used[index] = k + 1;
    const answer = turn.answers[k];
    if (answer === undefined) {
      const refused = refusedBrief(turn, request);
      if (refused !== undefined) {
        throw this.diverge({ turn: index + 1, agent, what: 'handoff_brief', ...refused });
      }
      throw this.diverge({
        turn: index + 1,
        agent,
        what: 'model_calls',
        expected: turn.answers.length,
        actual: k + 1,
      });
    }
    const offered = new Set((request.tools ?? []).map((t) => t.name));
    const last = k === turn.answers.length - 1;
    for (const call of answer.toolCalls) {
      if (offered.has(call.name)) continue;
      const handoff = last && turn.handoff !== undefined;
      throw this.diverge({
        turn: index + 1,
        agent,
        what: handoff ? 'handoff' : 'tool_call',
        expected: handoff ? turn.handoff : call.name,
        actual: null,
      });
    }
    return {
      content: answer.content,
      toolCalls: answer.toolCalls.map((c) => ({ ...c })),
      usage: { ...answer.usage },
      ...(answer.thought === undefined ? {} : { thought: answer.thought }),
    };
  }

  /** The recorded result of `call` in `agent`'s turn. */
  recordedResult(agent: string, call: FunctionCall): FunctionExecutionResult {
    const [index, turn] = this.#current(agent);
    const result = turn.results.findLast((r) => r.callId === call.id);
    if (result === undefined) {
      throw this.diverge({
        turn: index + 1,
        agent,
        what: 'tool_call',
        expected: null,
        actual: call.name,
      });
    }
    return result;
  }

  /** The state updates the call `callId` of `agent`'s turn made, as recorded (none: `[]`). */
  recordedUpdates(agent: string, callId: string): readonly StatePatchOp[] {
    const [, turn] = this.#current(agent);
    return turn.stateUpdates?.find((u) => u.callId === callId)?.ops ?? NO_OPS;
  }

  /**
   * Checks the state updates of a call against the recorded ones: `actual` is what the tool run
   * for real made, or the error that kept the recorded ones from applying.
   */
  checkUpdates(agent: string, call: FunctionCall, actual: readonly StatePatchOp[] | string): void {
    const recorded = this.recordedUpdates(agent, call.id);
    if (isDeepStrictEqual(recorded, actual)) return;
    const [index] = this.#current(agent);
    throw this.diverge({
      turn: index + 1,
      agent,
      what: 'state_update',
      expected: recorded,
      actual,
    });
  }

  /** Checks a result run for real against the recorded one. */
  liveResult(agent: string, call: FunctionCall, result: { content: unknown }): void {
    const recorded = this.recordedResult(agent, call);
    if (recorded.content === result.content) return;
    const [index] = this.#current(agent);
    throw this.diverge({
      turn: index + 1,
      agent,
      what: 'tool_result',
      expected: recorded.content,
      actual: result.content,
    });
  }

  /**
   * True the first time a call that was found in doubt in `agent`'s recorded turn is
   * about to run: its run was cut off while it ran, and the replay cuts its run off there too.
   */
  loses(agent: string, callId: string): boolean {
    const [, turn] = this.#current(agent);
    if (this.#lost.has(callId) || turn.inDoubt?.some((c) => c.id === callId) !== true) return false;
    this.#lost.add(callId);
    return true;
  }

  /** Cancels the run in progress, as the recorded one was (not a divergence). */
  cancelRun(): void {
    this.#cutOff = true;
    this.#abort.abort();
  }

  /** True once `cancelRun()` cut the current run off: what its calls give is discarded. */
  get cutOff(): boolean {
    return this.#cutOff;
  }

  /** `agent`'s turn ended (or paused): compares how with the recording. */
  end(agent: string, response: AgentResponse | AgentPause): void {
    const [index, turn] = this.#current(agent);
    const at = { turn: index + 1, agent };
    const recordedApprovals = turn.approvals?.map((c) => c.name) ?? null;
    const recordedInDoubt = turn.inDoubt?.map((c) => c.name) ?? null;
    if ('approvalRequest' in response) {
      const event = response.approvalRequest;
      const [what, recorded, paused] =
        event.type === 'ToolInDoubtEvent'
          ? (['in_doubt', recordedInDoubt, this.#doubted] as const)
          : (['approval', recordedApprovals, this.#paused] as const);
      paused.add(index);
      const names = event.content.map((c) => c.name);
      if (names.some((n) => !(recorded ?? []).includes(n))) {
        throw this.diverge({ ...at, what, expected: recorded, actual: names });
      }
      return;
    }
    this.#inFlight.delete(agent);
    if (recordedApprovals !== null && !this.#paused.has(index)) {
      throw this.diverge({ ...at, what: 'approval', expected: recordedApprovals, actual: null });
    }
    if (recordedInDoubt !== null && !this.#doubted.has(index)) {
      throw this.diverge({ ...at, what: 'in_doubt', expected: recordedInDoubt, actual: null });
    }
    const message = response.chatMessage;
    const handoff = message.type === 'HandoffMessage' ? message.target : null;
    if ((turn.handoff ?? null) !== handoff) {
      throw this.diverge({
        ...at,
        what: 'handoff',
        expected: turn.handoff ?? null,
        actual: handoff,
      });
    }
    const brief = changedBrief(turn, message);
    if (brief !== undefined) throw this.diverge({ ...at, what: 'handoff_brief', ...brief });
    const used = this.#used[index] ?? 0;
    if (this.#digests.has(agent) && used !== turn.answers.length) {
      throw this.diverge({
        ...at,
        what: 'model_calls',
        expected: turn.answers.length,
        actual: used,
      });
    }
    if (turn.message !== undefined && turn.message !== message.type) {
      throw this.diverge({ ...at, what: 'message', expected: turn.message, actual: message.type });
    }
  }
}
