/**
 * `GET /runs/{id}/events`: Server-Sent Events. The current record at once, then one
 * `event: run` per change with an increasing `id:`, an `event: preview` when the run has a new
 * preview image (at most every 500 ms), a comment line as heartbeat, and the end of the stream
 * after a terminal record. A client that goes away frees its stream slot at once.
 * @module
 */
import type { ServerResponse } from 'node:http';
import { CoreError, isUuid, type PreviewInfo, type RunloadApi, type RunStreamSink, type RunView } from '@runload/core';
import type { RouteContext, RouteResult } from './api-route.js';
import { presentPreviewEvent, presentRun } from './presenters.js';

const encoder = new TextEncoder();

/** Turns the run's records and previews into the text of the stream's frames; one per stream (it may keep state). */
export interface StreamFrames {
  record(view: RunView, last: boolean): string;
  /** A new preview's frames; without it the stream carries no previews. */
  preview?(info: PreviewInfo): string | Promise<string>;
}

export function runEventsRoute(api: RunloadApi) {
  return eventStreamRoute(api, () => {
    let seq = 0;
    const next = (event: string, data: unknown) => {
      seq += 1;
      return `id: ${seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    };
    return {
      record: (view) => next('run', presentRun(view.run, view.queuePosition)),
      preview: (info) => next('preview', presentPreviewEvent(info)),
    };
  });
}

/** The stream of a run's records, each written as `frames` of this stream say. */
export function eventStreamRoute(api: RunloadApi, frames: (ctx: RouteContext, runId: string) => StreamFrames | Promise<StreamFrames>) {
  return async (ctx: RouteContext): Promise<RouteResult> => {
    const raw = String((ctx.event.context.params as Record<string, string> | undefined)?.['id'] ?? '');
    if (!isUuid(raw)) throw new CoreError('RUN_NOT_FOUND', `Run ${raw} not found`);
    const headers = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' };
    if (ctx.event.req.method === 'HEAD') {
      // HEAD answers like GET without opening a stream (which would never end nor free its slot).
      await api.getRun.execute(ctx.principal, raw.toLowerCase());
      return { status: 200, stream: new ReadableStream({ start: (c) => c.close() }), headers };
    }
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let ended = false;
    let close: (() => Promise<void>) | null = null;
    const stop = () => {
      ended = true;
      void close?.().catch(() => undefined);
    };
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: stop,
    });
    const write = (text: string) => {
      if (ended) return;
      try {
        controller.enqueue(encoder.encode(text));
      } catch {
        stop();
      }
    };
    const frame = await frames(ctx, raw.toLowerCase());
    const toPreview = frame.preview?.bind(frame);
    const sink: RunStreamSink = {
      record(view, last) {
        write(frame.record(view, last));
        if (last) sink.end();
      },
      // A preview read after the stream ended is dropped by `write`.
      ...(toPreview
        ? {
            preview: (info: PreviewInfo) => {
              const text = toPreview(info);
              if (typeof text === 'string') write(text);
              else void text.then(write, () => undefined);
            },
          }
        : {}),
      heartbeat() {
        write(': keep-alive\n\n');
      },
      end() {
        if (ended) return;
        ended = true;
        controller.close();
      },
    };
    close = await api.runStreams.open(ctx.principal, raw.toLowerCase(), sink);
    if (ended) void close();
    // On Node the response's 'close' is the moment the client goes away (or the stream ended).
    const res = ctx.event.runtime?.node?.res as ServerResponse | undefined;
    res?.once('close', stop);
    ctx.event.req.signal?.addEventListener('abort', stop, { once: true });
    return { status: 200, stream, headers };
  };
}
