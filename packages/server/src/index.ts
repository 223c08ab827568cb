export { loadConfig, ConfigError, type RunloadConfig } from './config.js';
export { openRuntime, type Runtime, type RuntimeOptions, type HealthReport } from './runtime.js';
export { buildContainer, type ContainerOptions } from './container.js';
export { shutdown } from './shutdown.js';
export { startServer } from './http-server.js';
export { createLogger, type Logger } from './log.js';
export { CONFIG, DISPATCHER, INSTANCE_OWNER, PORTS } from './tokens.js';
