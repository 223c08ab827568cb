/**
 * Output files requested as soon as the socket announces them. An output node's `executed`
 * message names the files it saved (they are on disk by then); their downloads start at once,
 * while the run's outcome is still read from the server's history, which stays the only record
 * believed. A download the outcome then asks for is taken from here instead of requested again:
 * one round trip to the server less between the end of a run and its outputs stored (a real
 * ComfyUI may write the history a good while after the end is announced). One never asked for is
 * let go after a while.
 * @module
 */
import type { StreamedResponse } from './comfyui-http.js';
import { outputRefs } from './history-outcome.js';
import { whenAborted } from './when-aborted.js';

/** Files of one message downloaded ahead, at most: the rest are requested when the outcome asks. */
const AHEAD_PER_MESSAGE = 4;
/** Downloads waiting to be taken on one server, at most (each holds a connection). */
const AHEAD_AT_MOST = 16;
/** A download not asked for within this long is let go (the outcome's store asks within moments). */
const KEPT_MS = 30_000;

/** The `/view` path of an output file: files are named by the server, so a path names one file. */
export function viewPath(ref: { filename: string; subfolder: string; type: string }): string {
  return `/view?${new URLSearchParams({ filename: ref.filename, subfolder: ref.subfolder, type: ref.type }).toString()}`;
}

interface Ahead {
  readonly response: Promise<StreamedResponse>;
  readonly abort: AbortController;
  readonly expiry: NodeJS.Timeout;
}

export class OutputPrefetch {
  private readonly ahead = new Map<string, Ahead>();

  constructor(private readonly download: (path: string, signal: AbortSignal) => Promise<StreamedResponse>) {}

  /** An `executed` message: its output files (type `output`) start downloading. */
  onExecuted(data: Record<string, unknown>): void {
    const node = data['node'];
    const output = data['output'];
    if (typeof node !== 'string' || !output || typeof output !== 'object') return;
    const refs = outputRefs({ outputs: { [node]: output as Record<string, unknown> } });
    for (const ref of refs.slice(0, AHEAD_PER_MESSAGE)) this.start(viewPath(ref));
  }

  /**
   * The download started for `path`, if any (each is taken once), from now on aborted by `signal`
   * as one requested by the taker would be; null when none was started.
   */
  take(path: string, signal?: AbortSignal): Promise<StreamedResponse> | null {
    const found = this.remove(path);
    if (!found) return null;
    if (signal) {
      // The taker's signal lives long: the link goes with the download.
      const unlink = whenAborted(signal, () => found.abort.abort(signal.reason));
      found.response.then((res) => res.body.once('close', unlink), unlink);
    }
    return found.response;
  }

  /** Lets every download go (the server is closed). */
  close(): void {
    for (const path of [...this.ahead.keys()]) this.release(path);
  }

  private start(path: string): void {
    if (this.ahead.has(path) || this.ahead.size >= AHEAD_AT_MOST) return;
    const abort = new AbortController();
    const response = this.download(path, abort.signal);
    // A failure belongs to whoever takes it (who then asks again); one never taken is let go.
    response.catch(() => undefined);
    const expiry = setTimeout(() => this.release(path), KEPT_MS);
    expiry.unref();
    this.ahead.set(path, { response, abort, expiry });
  }

  private release(path: string): void {
    const found = this.remove(path);
    if (!found) return;
    found.abort.abort();
    void found.response.then((res) => res.body.destroy(), () => undefined);
  }

  /** The download kept for `path`, no longer kept (its expiry cleared). */
  private remove(path: string): Ahead | undefined {
    const found = this.ahead.get(path);
    if (!found) return undefined;
    this.ahead.delete(path);
    clearTimeout(found.expiry);
    return found;
  }
}
