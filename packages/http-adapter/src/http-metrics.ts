/**
 * How the HTTP app reports to a metrics system without depending on one: every answered request
 * is observed with its route pattern (never the raw path, so ids stay out of labels), and
 * `GET /metrics` serves whatever the implementation renders (the server uses prom-client).
 * @module
 */
import type { H3Event } from 'h3';

export interface HttpMetrics {
  /** Called once per response. `route` is the matched pattern, e.g. `/api/v1/runs/:id`. */
  observeRequest(request: { readonly method: string; readonly route: string; readonly status: number; readonly seconds: number }): void;
  /** The body of `GET /metrics` and its content type. */
  render(): Promise<{ readonly contentType: string; readonly body: string }>;
}

const STARTED = Symbol('runload.http.started');

type Timed = H3Event & { context: { [STARTED]?: bigint } };

/** h3's `onRequest` and `onResponse` hooks that time each request for `metrics`. */
export function requestTimer(metrics: HttpMetrics | undefined) {
  if (!metrics) return {};
  return {
    onRequest: (event: H3Event) => {
      (event as Timed).context[STARTED] = process.hrtime.bigint();
    },
    onResponse: (response: Response, event: H3Event) => {
      const started = (event as Timed).context[STARTED] ?? process.hrtime.bigint();
      metrics.observeRequest({
        method: event.req.method,
        route: event.context.matchedRoute?.route ?? 'unmatched',
        status: response.status,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
      });
    },
  };
}
