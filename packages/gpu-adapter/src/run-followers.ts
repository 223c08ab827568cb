/**
 * The runs followed on one ComfyUI server. Socket messages give early news (start, nodes,
 * progress, the end); every terminal outcome is read from the server's own records through
 * `inspect`, after each socket (re)connection and on a slow timer, so a silent or broken socket
 * never loses a run and a run that ended before anyone listened is still reported.
 * @module
 */
import type { ExecutionEvent, ExecutionState, FollowedRunEvent, Logger, Preview } from '@runload/core';
import type { SocketMessage } from './comfyui-socket.js';
import { RunProgress } from './run-progress.js';

interface Follower {
  readonly runId: string;
  readonly listener: (event: FollowedRunEvent) => void;
  started: boolean;
  done: boolean;
  /** A confirmation is under way; `again` asks for one more after it (news came meanwhile). */
  confirming: boolean;
  again: boolean;
  /** The server announced the end: its history is read first (one request instead of two). */
  endAnnounced: boolean;
  /** The run's progress as a whole, read from the node and step messages. */
  readonly progress: RunProgress;
  /** The last progress reported, so one change is reported once (servers say it in two messages). */
  lastProgress: string;
}

export interface FollowerHooks {
  readonly inspect: (runId: string, options: { endAnnounced: boolean }) => Promise<ExecutionState>;
  /** The run id a socket message's prompt id belongs to. */
  readonly runIdOf: (promptId: string) => string;
  readonly log: Logger;
}

/** Messages after which the history entry is (or is about to be) written. */
const END_MESSAGES = new Set(['execution_success', 'execution_error', 'execution_interrupted']);

export class RunFollowers {
  private readonly followers = new Map<string, Follower>();
  /**
   * The progress of prompts sent from here, by run id, until the run is followed to its end: fed
   * from the moment the prompt is sent, so messages before `follow` count too.
   */
  private readonly plans = new Map<string, RunProgress>();
  /**
   * Prompts sent from here that the server spoke of before they were followed: when it said the
   * prompt started, and whether it said it ended.
   */
  private readonly heardEarly = new Map<string, { startedAtMs: number | null; ended: boolean }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly hooks: FollowerHooks,
    private readonly confirmIntervalMs: number,
  ) {}

  /** The nodes of a prompt just sent, so its progress can be told as nodes done out of nodes to run. */
  plan(runId: string, nodeIds: readonly string[]): void {
    this.plans.set(runId, new RunProgress(new Set(nodeIds)));
  }

  /** A prompt that was not queued after all (refused, or never sent). */
  unplan(runId: string): void {
    if (this.followers.has(runId)) return;
    this.plans.delete(runId);
    this.heardEarly.delete(runId);
  }

  follow(runId: string, listener: (event: FollowedRunEvent) => void): () => void {
    const progress = this.plans.get(runId) ?? new RunProgress(null);
    const follower: Follower = { runId, listener, started: false, done: false, confirming: false, again: false, endAnnounced: false, progress, lastProgress: '' };
    const previous = this.followers.get(runId);
    if (previous) previous.done = true;
    this.followers.set(runId, follower);
    this.ensureTimer();
    // A prompt just sent from here is known to be queued, and the socket tells its news in order:
    // what it said before the follow began is taken as said now, and the rest comes after (the
    // timer and reconnections confirm it anyway). Only an end already announced is read at once,
    // from history. Any other run may have ended before anyone listened: asked now.
    const early = this.heardEarly.get(runId);
    this.heardEarly.delete(runId);
    if (!this.plans.has(runId)) void this.confirm(follower);
    else if (early) {
      if (early.startedAtMs !== null) this.markStarted(follower, early.startedAtMs);
      if (early.ended) {
        follower.endAnnounced = true;
        void this.confirm(follower);
      }
    }
    return () => this.drop(follower);
  }

  /** Re-checks every followed run against the server (after a reconnection, and on the timer). */
  confirmAll(): void {
    for (const f of [...this.followers.values()]) void this.confirm(f);
  }

  onMessage({ type, data }: SocketMessage): void {
    const promptId = data['prompt_id'];
    // The `executing` replay after a reconnection carries no prompt id: the confirmation covers it.
    if (typeof promptId !== 'string') return;
    const runId = this.hooks.runIdOf(promptId);
    const f = this.followers.get(runId);
    if (!f || f.done) {
      const plan = this.plans.get(runId);
      plan?.onMessage(type, data);
      if (plan && !f) this.hearEarly(runId, type, data);
      return;
    }
    const node = typeof data['node'] === 'string' ? data['node'] : null;
    const progress = f.progress.onMessage(type, data);
    if (type === 'execution_start') {
      this.markStarted(f, typeof data['timestamp'] === 'number' ? data['timestamp'] : Date.now());
    } else if (type === 'executing' && node !== null) {
      this.markStarted(f, Date.now());
      this.emit(f, { type: 'executing', nodeId: node });
    } else if (type === 'progress' || type === 'progress_state') {
      this.markStarted(f, Date.now());
    } else if (type === 'executing' || END_MESSAGES.has(type)) {
      // `executing {node: null}` follows the history write; the end messages precede it slightly.
      f.endAnnounced = true;
      void this.confirm(f);
      if (type !== 'executing') setTimeout(() => void this.confirm(f), 250).unref();
    }
    const said = progress ? `${progress.nodeId}:${progress.value}/${progress.max}` : '';
    if (progress && said !== f.lastProgress) {
      f.lastProgress = said;
      this.emit(f, { type: 'progress', ...progress });
    }
  }

  /** What the server said of a prompt sent from here before it was followed. */
  private hearEarly(runId: string, type: string, data: Record<string, unknown>): void {
    const early = this.heardEarly.get(runId) ?? { startedAtMs: null, ended: false };
    this.heardEarly.set(runId, early);
    if ((type === 'executing' && typeof data['node'] !== 'string') || END_MESSAGES.has(type)) early.ended = true;
    else if (early.startedAtMs === null && (type === 'execution_start' || type === 'executing' || type === 'progress' || type === 'progress_state')) {
      early.startedAtMs = type === 'execution_start' && typeof data['timestamp'] === 'number' ? data['timestamp'] : Date.now();
    }
  }

  /** A preview image of a prompt: told to the run's follower, if it is followed (nothing is kept). */
  onPreview(promptId: string, preview: Preview): void {
    const f = this.followers.get(this.hooks.runIdOf(promptId));
    if (f) this.emit(f, { type: 'preview', preview });
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const f of this.followers.values()) f.done = true;
    this.followers.clear();
  }

  /**
   * One confirmation at a time per run: news arriving meanwhile (the end messages come in pairs)
   * asks for one more after it, which is skipped when the first already found the end.
   */
  private async confirm(f: Follower): Promise<void> {
    if (f.done) return;
    if (f.confirming) {
      f.again = true;
      return;
    }
    f.confirming = true;
    try {
      do {
        f.again = false;
        await this.confirmOnce(f);
      } while (f.again && !f.done);
    } finally {
      f.confirming = false;
    }
  }

  private async confirmOnce(f: Follower): Promise<void> {
    if (f.done) return;
    let state: ExecutionState;
    try {
      state = await this.hooks.inspect(f.runId, { endAnnounced: f.endAnnounced });
    } catch (error) {
      // Unreachable for now: the next confirmation retries; the caller decides when that is a loss.
      this.hooks.log('warn', 'could not confirm a followed run', { runId: f.runId, error: (error as Error).message });
      return;
    }
    if (f.done) return;
    if (state.state === 'running') this.markStarted(f, Date.now());
    else if (state.state === 'unknown') this.end(f, { type: 'lost' });
    else if (state.state !== 'queued') this.end(f, { type: 'finished', result: state });
  }

  private markStarted(f: Follower, atMs: number): void {
    if (f.started) return;
    f.started = true;
    this.emit(f, { type: 'started', atMs });
  }

  private end(f: Follower, event: ExecutionEvent): void {
    this.drop(f);
    f.listener(event);
  }

  private emit(f: Follower, event: FollowedRunEvent): void {
    if (!f.done) f.listener(event);
  }

  private drop(f: Follower): void {
    f.done = true;
    if (this.followers.get(f.runId) === f) {
      this.followers.delete(f.runId);
      this.plans.delete(f.runId);
      this.heardEarly.delete(f.runId);
    }
    if (this.followers.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.confirmAll(), this.confirmIntervalMs);
    this.timer.unref();
  }
}
