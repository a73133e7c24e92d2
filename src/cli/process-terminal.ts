import { createInterface } from 'node:readline';

import type { TerminalIO } from './terminal-session.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The process's terminal: a prompt when typed, one reply per line when piped. */
export function processTerminal(): TerminalIO {
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
    close: () => {
      rl.close();
      process.stdin.pause();
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
