#!/usr/bin/env node
import { createInterface } from 'node:readline';

import { type DemoTerminal, runDemo } from './demo.js';

const HELP = `baton — multi-agent workflows where control passes like a baton

Usage:
  baton demo      run the support-desk demo (offline model unless OPENAI_API_KEY or OPENAI_BASE_URL is set)
  baton --help    show this help

Environment:
  OPENAI_API_KEY, OPENAI_BASE_URL   use a real OpenAI-compatible model in the demo
  BATON_MODEL                       the model name (default gpt-4.1-mini)
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
      if (closed) return null;
      if (tty) {
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
      process.stdout.write(
        'Usage: baton demo\n\nRuns the support-desk demo in this terminal; piped input is one reply per line.\n',
      );
      return 0;
    }
    if (rest.length > 0) {
      process.stderr.write(`baton demo: unknown argument "${rest[0]}". Run "baton demo --help".\n`);
      return 2;
    }
    const terminal = processTerminal();
    const code = await runDemo(terminal, {
      env: process.env,
      thinkMs: process.stdout.isTTY ? 250 : 0,
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
