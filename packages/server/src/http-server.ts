import type { RunningHttpServer } from '@runload/http-adapter';
import type { Runtime } from './runtime.js';

/** The HTTP server of a runtime, listening where its configuration says (resolved from its container). */
export function startServer(runtime: Runtime): Promise<RunningHttpServer> {
  return runtime.listen();
}
