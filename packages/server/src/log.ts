/** Structured logs: one JSON object a line on stderr (stdout is kept for command output). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

export function createLogger(component: string, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const quiet = process.env['RUNLOAD_LOG_LEVEL'] === 'silent';
  return (level, message, fields = {}) => {
    if (quiet || (level === 'debug' && process.env['RUNLOAD_LOG_LEVEL'] !== 'debug')) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level, component, message, ...fields })}\n`);
  };
}
