// The entry of the render threads (see render-pool.ts): piscina calls the default export with one
// render at a time; the pool terminates the thread when a render misses its deadline.
import type { MessagePort } from 'node:worker_threads';
import { type RenderedPage, type RenderRequest, renderPage } from './render-page';

/** A render, as the pool sends it. */
export interface RenderTask {
  /** What to render. */
  request: RenderRequest;
  /** Told once the thread has taken the render: its deadline starts then, not while it waited. */
  started: MessagePort;
}

/** Renders one page (`renderPage` does not throw; an error here still rejects the pool's task). */
export default function renderInThread({ request, started }: RenderTask): RenderedPage {
  started.postMessage(null);
  started.close();
  return renderPage(request);
}
