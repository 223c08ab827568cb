/**
 * The `Logger` port written by pino: one JSON object a line on stderr (stdout is kept for command
 * output). `RUNLOAD_LOG_LEVEL` picks the level (`debug`, `info` (default), `warn`, `error`, `silent`).
 * @module
 */
import { pino } from 'pino';
import type { Logger } from '@runload/core';

export type { Logger, LogLevel } from '@runload/core';

let root: pino.Logger | null = null;

function rootLogger(): pino.Logger {
  root ??= pino(
    {
      level: process.env['RUNLOAD_LOG_LEVEL'] || 'info',
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // Synchronous, so the last lines before an exit are not lost.
    pino.destination({ dest: 2, sync: true }),
  );
  return root;
}

/** A logger whose lines carry `component`. */
export function createLogger(component: string): Logger {
  const child = rootLogger().child({ component });
  return (level, message, fields = {}) => child[level](fields, message);
}
