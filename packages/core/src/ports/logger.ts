/** How much a log line matters; `debug` lines are dropped unless asked for. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Where the core and the adapters say what happened: one call per event, a fixed message and
 * structured fields (never secrets or API keys). The server writes JSON lines with pino; an
 * embedder passes its own. It must not throw.
 */
export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/** A logger that drops everything: the default where none is given. */
export const silentLogger: Logger = () => undefined;

export const LOGGER = Symbol.for('runload.core.Logger');
