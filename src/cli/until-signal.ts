/**
 * Waits for Ctrl-C or SIGTERM and resolves with the exit code the shell's 128 + signal convention
 * gives it: 130 after Ctrl-C, 143 after SIGTERM. The listeners are removed once one fires.
 */
export function untilSignal(): Promise<number> {
  return new Promise<number>((resolve) => {
    const onInterrupt = () => stop(130);
    const onTerminate = () => stop(143);
    const stop = (exitCode: number) => {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerminate);
      resolve(exitCode);
    };
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onTerminate);
  });
}
