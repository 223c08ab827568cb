import { createHttpApp, startHttpServer, type RunningHttpServer } from '@runload/http-adapter';
import type { RunloadConfig } from './config.js';
import type { Logger } from './log.js';
import type { Runtime } from './runtime.js';

/** The HTTP server of a runtime, listening where the configuration says. */
export function startServer(runtime: Runtime, config: RunloadConfig, log: Logger): Promise<RunningHttpServer> {
  const app = createHttpApp(runtime.api, {
    maxUploadBytes: config.maxUploadBytes,
    uploadDir: runtime.uploadDir,
    trustedProxies: config.trustedProxies,
    corsOrigins: config.corsOrigins,
    health: () => runtime.health(),
    log: (level, message, fields) => log(level, message, fields),
  });
  return startHttpServer(app, { host: config.host, port: config.port, log: (level, message, fields) => log(level, message, fields) });
}
