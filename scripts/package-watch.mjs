// Which npm packages this process loads from now on: ES modules as they pass a load hook, CommonJS
// ones (which tsx's own hooks may load out of the hook's sight) from require's cache. Used by
// test/support/loaded-packages.ts and bench/import-cost.ts.
import { createRequire, registerHooks } from 'node:module';

/** Starts watching; the function returned lists the packages loaded so far, sorted. */
export function watchPackages() {
  const loaded = new Set();
  const note = (url) => {
    const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    if (name !== undefined) loaded.add(name);
  };
  registerHooks({
    load(url, context, next) {
      note(url);
      return next(url, context);
    },
  });
  return () => {
    for (const path of Object.keys(createRequire(import.meta.url).cache)) note(path);
    return [...loaded].sort();
  };
}
