import type { z } from 'zod';

/** `conditions[1].maxMessages` for the path `['conditions', 1, 'maxMessages']`; `(root)` if empty. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

/** The first issue of a zod error as `path: message`, and the path alone. */
export function firstIssue(error: z.ZodError): { path: string; text: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { path: '(root)', text: '(root): invalid value' };
  // For an unknown key the bad field is the key itself, not the object holding it.
  const keys = issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [];
  const path = formatPath([...issue.path, ...keys]);
  return { path, text: `${path}: ${issue.message}` };
}
