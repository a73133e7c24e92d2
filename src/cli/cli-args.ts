/** Bad command-line input: the CLI prints the message as one line and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An option that takes a value, and how its help names that value. */
export interface OptionSpec {
  readonly name: string;
  /** What the value is, for the error when it is missing: `an id`, `a directory`. */
  readonly value: string;
  readonly example: string;
  /** A flag (`--ui`) takes no value; parsed, its value is `"yes"`. */
  readonly flag?: boolean;
}

/** What a command accepts. */
export interface CommandSpec {
  readonly command: string;
  readonly options: readonly OptionSpec[];
  /** The positional arguments, by name; all required. */
  readonly positionals: readonly { readonly name: string; readonly example: string }[];
}

/** A parsed command line: positionals by name, option values by name, and whether help was asked. */
export interface ParsedArgs {
  readonly positionals: Readonly<Record<string, string>>;
  readonly options: ReadonlyMap<string, string>;
  readonly help: boolean;
}

/**
 * Parses `argv` (the words after the command) against `spec`: `--name value` or `--name=value`
 * for options, `--name` alone for flags, `--help`/`-h` anywhere. Throws `UsageError` with a one-line message naming the bad
 * word and the help command.
 */
export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const hint = `Run "baton ${spec.command} --help".`;
  // Typed on the name, so that TypeScript narrows after each call.
  const fail: (text: string) => never = (text) => {
    throw new UsageError(`baton ${spec.command}: ${text} ${hint}`);
  };
  if (argv.includes('--help') || argv.includes('-h')) {
    return { positionals: {}, options: new Map(), help: true };
  }
  const options = new Map<string, string>();
  const words: string[] = [];
  for (let i = 0, arg = argv[0]; arg !== undefined; arg = argv[++i]) {
    if (!arg.startsWith('-') || arg === '-') {
      words.push(arg);
      continue;
    }
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const option = spec.options.find((o) => `--${o.name}` === flag);
    if (option === undefined) {
      const meant = closest(
        flag,
        spec.options.map((o) => `--${o.name}`),
      );
      fail(`unknown argument "${arg}"${meant === undefined ? '.' : `: did you mean ${meant}?`}`);
    }
    const known = option;
    if (known.flag === true) {
      if (inline !== undefined) fail(`--${known.name} takes no value, got "${arg}".`);
      if (options.has(known.name)) fail(`--${known.name} is given twice.`);
      options.set(known.name, 'yes');
      continue;
    }
    const value = inline ?? argv[i + 1];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('-'))) {
      fail(`--${known.name} needs ${known.value}, e.g. ${known.example}.`);
    }
    if (options.has(known.name)) fail(`--${known.name} is given twice.`);
    options.set(known.name, value);
    if (inline === undefined) i++;
  }
  const positionals: Record<string, string> = {};
  spec.positionals.forEach((p, i) => {
    const word = words[i];
    if (word === undefined) fail(`which ${p.name}? e.g. ${p.example}.`);
    positionals[p.name] = word;
  });
  const extra = words[spec.positionals.length];
  if (extra !== undefined) fail(`unknown argument "${extra}".`);
  return { positionals, options, help: false };
}

/**
 * The candidate `word` was most likely meant to be: the nearest by edit distance, when at most two
 * edits away (a typo, not another word). `--sesion` gives `--session`.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Edit distance counting an insertion, a deletion, a substitution or a swap of neighbours as one. */
function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  // d[i * width + j]: the distance from a's first i characters to b's first j.
  const d = Array.from({ length: (a.length + 1) * width }, (_, k) => {
    const [i, j] = [Math.floor(k / width), k % width];
    return i === 0 ? j : j === 0 ? i : 0;
  });
  const at = (i: number, j: number) => d[i * width + j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(
        at(i - 1, j) + 1,
        at(i, j - 1) + 1,
        at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The arguments of a command with one subcommand (`baton test record`, `baton eval routing`):
 * parsed, or the exit code when help was printed instead (2 when the subcommand was missing).
 * @throws UsageError for another subcommand.
 */
export function subcommandArgs(
  command: string,
  subcommand: string,
  spec: CommandSpec,
  help: string,
  argv: readonly string[],
): ParsedArgs | number {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(help);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== subcommand) {
    throw new UsageError(
      `baton ${command}: unknown subcommand "${sub}"; the one there is: ${subcommand}. ` +
        `Run "baton ${command} --help".`,
    );
  }
  const args = parseCommandArgs(spec, rest);
  if (!args.help) return args;
  process.stdout.write(help);
  return 0;
}
