// Preloaded into a `switchyard` child process (`node --expose-gc --import <this file> dist/cli.js ...`):
// a full garbage collection every 250 ms for the whole process, the load under which a time limit that
// nothing owns is collected before it fires. On exit it writes how many ran to stderr, so a test can
// check the process really was under collections (tooling/test-support's collectGarbageOften is the
// same for a test's own process).
//
// Why 250 ms: a limit nothing owns is gone after the first full collection that follows its start, so
// every limit the tests use (1 s and longer) sees four or more. A full collection of a serve process
// takes about 30 ms: at one every 5 ms the process collected without pause, took 10 s to start, and
// its test file used a minute of CPU on a 2-core machine that runs the whole suite.
if (typeof globalThis.gc !== 'function') throw new Error('collect-garbage-often.mjs needs node --expose-gc');
let collections = 0;
const interval = setInterval(() => {
  globalThis.gc();
  collections += 1;
}, 250);
interval.unref();
process.on('exit', () => {
  process.stderr.write(`forced garbage collections: ${collections}\n`);
});
