// Loaded with `node --import` before a probe: makes `@modelcontextprotocol/sdk` unresolvable, as
// in an application that did not install the optional peer dependency.
import { register } from 'node:module';

const hooks = `
export async function resolve(specifier, context, next) {
  if (specifier === '@modelcontextprotocol/sdk' || specifier.startsWith('@modelcontextprotocol/sdk/')) {
    const error = new Error("Cannot find package '@modelcontextprotocol/sdk' (blocked by the test)");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
