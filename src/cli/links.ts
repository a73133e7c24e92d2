// What the CLI's help points to. A help text is read in a project that installed the package, where
// no docs/ or samples/ sits beside the user's files: it names pages by the repository's address
// (package.json's `repository`, which test/scenarios/cli.test.ts checks this against).

/** The repository's address on GitHub. */
export const REPOSITORY = 'https://github.com/baton-agents/baton';

/** The address of a page of docs/, e.g. `serving.md`. */
export function docsUrl(page: string): string {
  return `${REPOSITORY}/blob/main/docs/${page}`;
}

/** The address of the repository's samples/ folder: complete small programs, each a workflow module. */
export const SAMPLES_URL = `${REPOSITORY}/tree/main/samples`;
