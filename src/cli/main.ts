#!/usr/bin/env node
import { createInterface } from 'node:readline';

import { type DemoTerminal, runDemo } from './demo.js';

const HELP = `baton — multi-agent workflows where control passes like a baton

Usage:
  baton demo [--session <id>]   run the support-desk demo (offline model unless OPENAI_API_KEY or
                                OPENAI_BASE_URL is set); --session resumes a session saved in .baton/
  baton --help                  show this help

Environment:
  OPENAI_API_KEY, OPENAI_BASE_URL   use a real OpenAI-compatible model in the demo
  BATON_MODEL                       the model name (default gpt-4.1-mini)
`;

const DEMO_HELP = `Usage: baton demo [--session <id>]

Runs the support-desk demo in this terminal; piped input is one reply per line.
Sessions are saved in .baton/; --session <id> resumes one (or starts a new one under that id).
`;

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The process's terminal: a prompt when typed, one reply per line when piped. */
function processTerminal(): DemoTerminal {
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const rl = createInterface({
    input: process.stdin,
    output: tty ? process.stdout : undefined,
    terminal: tty,
  });
  const lines = rl[Symbol.asyncIterator]();
  let closed = false;
  rl.on('close', () => {
    closed = true;
  });
  let interrupt: () => void = () => {};
  rl.on('SIGINT', () => {
    interrupt();
    rl.close();
  });
  process.on('SIGINT', () => {
    interrupt();
    rl.close();
  });
  return {
    color: tty,
    echoInput: !tty,
    write: (text) => void process.stdout.write(text),
    onInterrupt: (handler) => {
      interrupt = handler;
    },
    ask: async (prompt) => {
      if (tty) {
        if (closed) return null;
        return new Promise((resolve) => {
          const onClose = () => resolve(null);
          rl.once('close', onClose);
          rl.question(prompt, (answer) => {
            rl.off('close', onClose);
            resolve(answer);
          });
        });
      }
      const next = await lines.next();
      return next.done === true ? null : next.value;
    },
    spin: (label) => {
      if (!tty) return () => {};
      let frame = 0;
      const timer = setInterval(() => {
        process.stderr.write(`\r${SPINNER[frame++ % SPINNER.length]} ${label}`);
      }, 80);
      return () => {
        clearInterval(timer);
        process.stderr.write('\r\u001b[K');
      };
    },
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === 'demo') {
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(DEMO_HELP);
      return 0;
    }
    let sessionId: string | undefined;
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i];
      const value = rest[i + 1];
      if (arg === '--session' && value !== undefined && !value.startsWith('-')) {
        sessionId = value;
        i++;
      } else if (arg === '--session') {
        process.stderr.write(
          'baton demo: --session needs an id, e.g. --session 3f2a. Run "baton demo --help".\n',
        );
        return 2;
      } else {
        process.stderr.write(`baton demo: unknown argument "${arg}". Run "baton demo --help".\n`);
        return 2;
      }
    }
    const terminal = processTerminal();
    const code = await runDemo(terminal, {
      env: process.env,
      thinkMs: process.stdout.isTTY ? 250 : 0,
      ...(sessionId === undefined ? {} : { sessionId }),
    });
    process.stdin.pause();
    return code;
  }
  process.stderr.write(`baton: unknown command "${command}". Run "baton --help".\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`baton: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
