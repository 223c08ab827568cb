/**
 * One request id and one logger per request, kept on the event: the routes, the last-net error
 * handler and `/healthz` all answer and log under the same id, and no call site adds it by hand.
 * The logger is `withFields`, one closure: binding it costs nothing until a line is written.
 * @module
 */
import type { H3Event } from 'h3';
import { withFields, type Logger } from '@runload/core';

const ID = Symbol('runload.requestId');
const LOG = Symbol('runload.requestLog');
type Bound = H3Event & { context: { [ID]?: string; [LOG]?: Logger } };

export interface RequestLogDeps {
  readonly log: Logger;
  readonly requestId: () => string;
}

/** The id a client sent (when it is a sane token), else a new one; the same for the whole request. */
export function requestIdOf(event: H3Event, deps: RequestLogDeps): string {
  const context = (event as Bound).context;
  const known = context[ID];
  if (known !== undefined) return known;
  const incoming = event.req.headers.get('x-request-id');
  const id = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : deps.requestId();
  context[ID] = id;
  return id;
}

/** The request's logger: every line carries its request id, method and path. */
export function requestLog(event: H3Event, deps: RequestLogDeps): Logger {
  const context = (event as Bound).context;
  return (context[LOG] ??= withFields(deps.log, { requestId: requestIdOf(event, deps), method: event.req.method, path: event.url.pathname }));
}
