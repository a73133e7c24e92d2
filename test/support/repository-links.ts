// The addresses of the repository that a text prints (the README, a help text), and whether each
// names something that exists: the repository itself, its issues, or a file or folder of this
// checkout (`/blob/main/<path>`, `/tree/main/<path>`). The address is package.json's `repository`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { root } from './markdown-blocks.js';

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  repository: { url: string };
};

/** `https://github.com/<owner>/<name>`, from package.json's `git+https://….git`. */
export const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

/** Every http(s) address in `text`, without a trailing `)`, `.` or `,`. */
export function addressesIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s)>`'"]+/g)].map((m) => m[0].replace(/[.,:;]+$/, ''));
}

/**
 * The addresses among `addresses` that do not resolve: another site than the repository (unless
 * `others` allows it), or a path under `/blob/main/` or `/tree/main/` this checkout lacks.
 */
export function unresolvedAddresses(
  addresses: readonly string[],
  others: (address: string) => boolean = () => false,
): string[] {
  return addresses.filter((address) => {
    if (!address.startsWith(repository)) return !others(address);
    const rest = address.slice(repository.length).replace(/#.*$/, '');
    if (rest === '' || rest === '/issues') return false;
    const file = /^\/(?:blob|tree)\/main\/(.+)$/.exec(rest)?.[1];
    return file === undefined || !existsSync(join(root, file));
  });
}
