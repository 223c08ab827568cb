export { loadConfig, ConfigError, type RunloadConfig } from './config.js';
export { openRuntime, type Runtime, type RuntimeOptions, type HealthReport } from './runtime.js';
export { buildContainer } from './container.js';
export { startServer } from './http-server.js';
export { createLogger, type Logger } from './log.js';
