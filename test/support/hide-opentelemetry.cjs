// Preloaded with `node --require`: makes `@opentelemetry/*` unresolvable, as in an application
// that does not install the optional peer dependency.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a --require preload is CommonJS
const Module = require('node:module');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith('@opentelemetry/')) {
    const error = new Error(`Cannot find module '${request}'`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolve.call(this, request, ...rest);
};
