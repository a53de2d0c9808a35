// The render threads' entry when this package runs from source (its tests and benchmarks, through
// tsx): a worker thread does not inherit the loader tsx registered in the main thread, so this
// registers it in the thread, then loads render-worker.ts. The built package starts
// dist/render-worker.js instead; this file is never built or published.
import { register } from 'tsx/esm/api';

register();
const { default: renderInThread } = await import('./render-worker.ts');
export default renderInThread;
