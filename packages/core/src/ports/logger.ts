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

/**
 * A logger whose every line carries `fields` (a request's id, say) under the line's own fields:
 * one closure, so binding it per request costs nothing until a line is written.
 */
export function withFields(log: Logger, fields: Readonly<Record<string, unknown>>): Logger {
  return (level, message, more) => log(level, message, more ? { ...fields, ...more } : fields);
}
