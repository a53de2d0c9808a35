// `node --import` this file to make test runners unresolvable, as in a production install that has
// only the worker's `dependencies`: any import of vitest, jest or mocha (or their scoped packages)
// fails with ERR_MODULE_NOT_FOUND, whatever node_modules holds on this machine.
import { register } from 'node:module';

const hooks = `
const TEST_RUNNER = /^(vitest|@vitest\\/[^/]+|jest|@jest\\/[^/]+|mocha)(\\/|$)/;
export async function resolve(specifier, context, nextResolve) {
  if (TEST_RUNNER.test(specifier)) {
    const error = new Error(\`test runner \${specifier} imported from \${context.parentURL} (refused: not a production dependency)\`);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return nextResolve(specifier, context);
}
`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`);
