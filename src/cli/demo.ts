import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import { Console, summaryLines } from '../console.js';
import type { TaskResult } from '../engine/runnable.js';
import type { AgentMessage } from '../messages/message.js';
import type { ChatClient } from '../models/chat-client.js';
import { OpenAIChatClient } from '../models/openai-chat-client.js';
import { createSupportDesk } from './demo-desk.js';
import { type DeskRole, OfflineDeskModel } from './demo-model.js';

/** The terminal the demo talks to; `ask` resolves to `null` at the end of input. */
export interface DemoTerminal {
  ask(prompt: string): Promise<string | null>;
  write(text: string): void;
  /** Shown while a model works; cleared by the returned function. */
  spin?(label: string): () => void;
  /** Registers what Ctrl-C does. */
  onInterrupt(handler: () => void): void;
  readonly color: boolean;
  /** Input is piped (not typed): echo each line into the transcript. */
  readonly echoInput: boolean;
}

/** The default small model used when a key or base URL is set. */
export const DEFAULT_DEMO_MODEL = 'gpt-4.1-mini';

/** Which model the demo uses, from the environment. */
export function demoClients(
  env: NodeJS.ProcessEnv,
  thinkMs: number,
): {
  clientFor: (role: DeskRole) => ChatClient;
  banner: string;
} {
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    const model = env.BATON_MODEL || DEFAULT_DEMO_MODEL;
    // Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) accept any key.
    const client = new OpenAIChatClient({ model, apiKey: env.OPENAI_API_KEY || 'unused' });
    const where = env.OPENAI_BASE_URL ? env.OPENAI_BASE_URL : 'the OpenAI API';
    return {
      clientFor: () => client,
      banner: `Using model "${model}" at ${where} (set BATON_MODEL to change it).`,
    };
  }
  return {
    clientFor: (role) => new OfflineDeskModel(role, { thinkMs }),
    banner:
      'No OPENAI_API_KEY or OPENAI_BASE_URL is set, so the agents run on the built-in OFFLINE model: a ' +
      'deterministic, rule-based stand-in written for this scenario, not a language model. Set ' +
      'OPENAI_API_KEY (or OPENAI_BASE_URL for any OpenAI-compatible server) to use a real model.',
  };
}

/** Wraps a stream so the terminal shows a spinner while nothing arrives. */
async function* spinning(
  stream: AsyncIterable<AgentMessage | TaskResult>,
  terminal: DemoTerminal,
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
 * The `baton demo` conversation: a support desk with the user in the loop. Each user line is a
 * run; the session ends when the user says "bye", input ends, or Ctrl-C stops it. Returns the
 * exit code.
 */
export async function runDemo(
  terminal: DemoTerminal,
  options: {
    env: NodeJS.ProcessEnv;
    thinkMs?: number;
    sessionId?: string;
    storeDirectory?: string;
  },
): Promise<number> {
  const started = performance.now();
  const { clientFor, banner } = demoClients(options.env, options.thinkMs ?? 0);
  const directory = options.storeDirectory ?? '.baton';
  const desk = createSupportDesk(clientFor, {
    checkpointStore: new FileCheckpointStore(directory),
  });
  const session = desk.workflow.session(options.sessionId);
  let controller = new AbortController();
  let interrupted = false;
  terminal.onInterrupt(() => {
    interrupted = true;
    desk.stop.set();
    controller.abort(new Error('Stopped with Ctrl-C.'));
  });

  terminal.write(
    [
      'Baton support-desk demo',
      banner,
      'Agents: triage (the coordinator) hands off to billing, technical or account; billing can escalate to technical.',
      'Type your message and press Enter. Say "bye" to finish; Ctrl-C stops at any time.',
      'Try: "I was charged twice for invoice INV-1001", then "yes please", then "my internet keeps dropping".',
      `Session ${session.id} is saved in ${directory}/; resume it with: npm start -- --session ${session.id}`,
      '',
    ].join('\n'),
  );
  const before = await session.info();
  if (before.step > 0) {
    const thread = await session.messages();
    terminal.write(
      `Resuming session ${session.id}: ${thread.length} messages so far (${before.status}).\n`,
    );
    if (before.pendingRequest !== undefined) {
      terminal.write(`${before.pendingRequest.agent} asked: ${before.pendingRequest.prompt}\n`);
    }
  }

  const usage = { promptTokens: 0, completionTokens: 0 };
  let finishReason = 'no input';
  for (;;) {
    const line = await terminal.ask('you> ');
    if (line === null || interrupted) {
      finishReason = interrupted ? 'stopped with Ctrl-C' : 'end of input';
      if (interrupted) terminal.write('\n');
      break;
    }
    if (line.trim() === '') continue;
    if (terminal.echoInput) terminal.write(`you> ${line}\n`);
    controller = new AbortController();
    const result = await Console(
      spinning(session.runStream(line, { signal: controller.signal }), terminal),
      {
        write: (text) => terminal.write(text),
        color: terminal.color,
      },
    );
    usage.promptTokens += result.usage.promptTokens;
    usage.completionTokens += result.usage.completionTokens;
    finishReason = result.stopReason ?? result.status;
    if (result.status !== 'awaiting_input') break;
  }

  const lines = summaryLines({
    messages: (await session.messages()).length,
    finishReason,
    usage,
    seconds: (performance.now() - started) / 1000,
  });
  terminal.write(`${lines.join('\n')}\n`);
  return 0;
}
