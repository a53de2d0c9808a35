// Preloaded into a `switchyard` child process (`node --expose-gc --import <this file> dist/cli.js ...`):
// a full garbage collection every 5 ms for the whole process, the load under which a time limit that
// nothing owns is collected before it fires. On exit it writes how many ran to stderr, so a test can
// check the process really was under collections (tooling/test-support's collectGarbageOften is the
// same for a test's own process).
if (typeof globalThis.gc !== 'function') throw new Error('collect-garbage-often.mjs needs node --expose-gc');
let collections = 0;
const interval = setInterval(() => {
  globalThis.gc();
  collections += 1;
}, 5);
interval.unref();
process.on('exit', () => {
  process.stderr.write(`forced garbage collections: ${collections}\n`);
});
