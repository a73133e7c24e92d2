import { Console, summaryLines } from '../console.js';
import type { RunOptions, Session, Task, TaskResult } from '../engine/runnable.js';
import type { PendingRequest } from '../engine/state/session-state.js';
import type { AgentMessage, ToolApprovalResponseEvent } from '../messages/message.js';
import { approve, reject, resolve, textMessage } from '../messages/message-factories.js';
import { visibleControls } from '../visible-controls.js';

/** The terminal a conversation talks to; `ask` resolves to `null` at the end of input. */
export interface TerminalIO {
  ask(prompt: string): Promise<string | null>;
  write(text: string): void;
  /** Shown while a model works; cleared by the returned function. */
  spin?(label: string): () => void;
  /** Registers what Ctrl-C does. */
  onInterrupt(handler: () => void): void;
  /**
   * Releases the input (a TTY's readline keeps the process alive); `talk()` calls it when the
   * conversation ends, however it ends — a failed run included.
   */
  close?(): void;
  readonly color: boolean;
  /** Input is piped (not typed): echo each line into the transcript. */
  readonly echoInput: boolean;
}

/** The part of a session a terminal conversation uses (from whichever copy of the library). */
export type TerminalSession = Pick<Session, 'id' | 'info' | 'messages'> & {
  runStream(task?: Task, options?: RunOptions): AsyncIterable<AgentMessage | TaskResult>;
};

/** How `talk()` runs one conversation. */
export interface ConversationOptions {
  /** Lines printed before anything else. */
  readonly intro: readonly string[];
  /** What Ctrl-C does besides aborting the run in flight (the demo also sets its stop condition). */
  readonly onInterrupt?: () => void;
  /** The task for a typed line. @default the line itself */
  readonly taskFor?: (line: string) => Task | Promise<Task>;
  /** Whether the user is asked again after `result`. @default it awaits input */
  readonly goesOn?: (result: TaskResult) => boolean;
  /** Milliseconds, for the summary's duration (the time in runs). @default performance.now */
  readonly clock?: () => number;
  /** Lines printed after the summary (the demo shows its desk's state). */
  readonly closing?: () => Promise<readonly string[]>;
}

/** Wraps a stream so the terminal shows a spinner while nothing arrives. */
async function* spinning(
  stream: AsyncIterable<AgentMessage | TaskResult>,
  terminal: TerminalIO,
): AsyncGenerator<AgentMessage | TaskResult> {
  const iterator = stream[Symbol.asyncIterator]();
  for (;;) {
    const stopSpinner = terminal.spin?.('working');
    let next: IteratorResult<AgentMessage | TaskResult>;
    try {
      next = await iterator.next();
    } finally {
      stopSpinner?.();
    }
    if (next.done === true) return;
    yield next.value;
  }
}

/**
 * A conversation with `session` in a terminal, shared by `baton demo` and `baton run`: says where a
 * resumed session stands, then each user line is a run rendered by `Console` (with a spinner);
 * it ends when the session stops asking, input ends, or Ctrl-C aborts the run in flight, and
 * prints the summary, whose duration is the time spent in runs (not at the prompt). Every string
 * from the session (agent names, prompts, tool arguments) is shown with its control characters
 * made visible. Returns the exit code: 130 after Ctrl-C, else 0.
 */
export async function talk(
  terminal: TerminalIO,
  session: TerminalSession,
  options: ConversationOptions,
): Promise<number> {
  try {
    return await converse(terminal, session, options);
  } finally {
    terminal.close?.();
  }
}

async function converse(
  terminal: TerminalIO,
  session: TerminalSession,
  options: ConversationOptions,
): Promise<number> {
  const clock = options.clock ?? (() => performance.now());
  let working = 0;
  let controller = new AbortController();
  let interrupted = false;
  terminal.onInterrupt(() => {
    interrupted = true;
    options.onInterrupt?.();
    controller.abort(new Error('Stopped with Ctrl-C.'));
  });

  // Intro lines name the module, its workflow and the session id: controls show there too.
  terminal.write(`${options.intro.map((line) => visibleControls(line)).join('\n')}\n`);
  const before = await session.info();
  if (before.step > 0) {
    const count = (await session.messages()).length;
    terminal.write(
      `Resuming session ${visibleControls(session.id)}: ${count} message${count === 1 ? '' : 's'} ` +
        `so far (${before.status}).\n`,
    );
    // A pause for approval goes on with its y/N question, which shows the call.
    const asked = before.pendingRequest;
    if (asked !== undefined && asked.kind === 'input') {
      terminal.write(`${visibleControls(asked.agent)} asked: ${visibleControls(asked.prompt)}\n`);
    }
  }

  const goesOn = options.goesOn ?? ((result: TaskResult) => result.status === 'awaiting_input');
  const usage = { promptTokens: 0, completionTokens: 0 };
  let finishReason: string;
  let pending = before.status === 'awaiting_input' ? before.pendingRequest : undefined;
  for (;;) {
    let task: Task;
    if (pending?.kind === 'approval' || pending?.kind === 'in_doubt') {
      const decided =
        pending.kind === 'approval'
          ? await askApprovals(terminal, pending)
          : await askInDoubt(terminal, pending);
      if (decided === null || interrupted) {
        finishReason = interrupted ? 'stopped with Ctrl-C' : 'end of input';
        if (interrupted) terminal.write('\n');
        break;
      }
      task = decided;
    } else {
      const line = await terminal.ask('you> ');
      if (line === null || interrupted) {
        finishReason = interrupted ? 'stopped with Ctrl-C' : 'end of input';
        if (interrupted) terminal.write('\n');
        break;
      }
      if (line.trim() === '') continue;
      if (terminal.echoInput) terminal.write(`you> ${visibleControls(line)}\n`);
      task = options.taskFor === undefined ? line : await options.taskFor(line);
    }
    controller = new AbortController();
    const started = clock();
    const result = await Console(
      // The user's own line is on screen already (typed at the prompt, or echoed when piped).
      spinning(
        session.runStream(task, { signal: controller.signal, outputTaskMessages: false }),
        terminal,
      ),
      // The y/N question shows each call awaiting approval: the transcript does not repeat it.
      { write: (text) => terminal.write(text), color: terminal.color, promptsApprovals: true },
    );
    working += clock() - started;
    usage.promptTokens += result.usage.promptTokens;
    usage.completionTokens += result.usage.completionTokens;
    finishReason = result.stopReason ?? result.status;
    pending = result.pendingRequest;
    if (!goesOn(result)) break;
  }

  const lines = summaryLines({
    messages: (await session.messages()).length,
    finishReason,
    usage,
    seconds: working / 1000,
  });
  lines[lines.length - 1] += ' (time at the prompt not counted)';
  if (options.closing !== undefined)
    lines.push(...(await options.closing()).map((line) => visibleControls(line)));
  terminal.write(`${lines.join('\n')}\n`);
  // 128 + SIGINT: the shell's convention for a program stopped with Ctrl-C.
  return interrupted ? 130 : 0;
}

/**
 * Asks about each call awaiting approval with one line showing the call and its arguments exactly
 * (controls made visible, so no argument can rewrite the line): `y` approves, `n` (or nothing)
 * rejects, and any other line is a reply to the agent that rejects the calls not yet decided.
 * Resolves to the decisions as a task, or `null` at the end of input.
 */
async function askApprovals(terminal: TerminalIO, request: PendingRequest): Promise<Task | null> {
  const decisions: ToolApprovalResponseEvent[] = [];
  for (const call of request.calls ?? []) {
    const prompt =
      `${visibleControls(request.agent)} wants to run ` +
      `${visibleControls(call.name)}(${visibleControls(call.arguments)}). Approve? [y/N] `;
    const line = await terminal.ask(prompt);
    if (line === null) return null;
    if (terminal.echoInput) terminal.write(`${prompt}${visibleControls(line)}\n`);
    const answer = line.trim().toLowerCase();
    if (answer === 'y' || answer === 'yes') decisions.push(approve(call.id));
    else if (answer === 'n' || answer === 'no' || answer === '') decisions.push(reject(call.id));
    else return [...decisions, textMessage({ source: 'user', content: line })];
  }
  return decisions;
}

/**
 * Asks about each call in doubt with one line showing the call: `r` runs it again,
 * `s` (or nothing) skips it, and any other line is the result it had. Resolves to the decisions
 * as a task, or `null` at the end of input.
 */
async function askInDoubt(terminal: TerminalIO, request: PendingRequest): Promise<Task | null> {
  const decisions: ToolApprovalResponseEvent[] = [];
  for (const call of request.calls ?? []) {
    const prompt =
      `${visibleControls(request.agent)}'s call ${visibleControls(call.name)}` +
      `(${visibleControls(call.arguments)}) may or may not have completed. ` +
      '[r]etry, [s]kip, or type its result: ';
    const line = await terminal.ask(prompt);
    if (line === null) return null;
    if (terminal.echoInput) terminal.write(`${prompt}${visibleControls(line)}\n`);
    const answer = line.trim().toLowerCase();
    if (answer === 'r' || answer === 'retry') decisions.push(approve(call.id));
    else if (answer === 's' || answer === 'skip' || answer === '') decisions.push(reject(call.id));
    else decisions.push(resolve(call.id, line));
  }
  return decisions;
}
