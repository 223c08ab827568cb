/**
 * The runs followed on one ComfyUI server. Socket messages give early news (start, nodes,
 * progress, the end); a terminal outcome is read from the server's own records through `inspect`
 * (after each socket (re)connection and on a slow timer, so a silent or broken socket never loses
 * a run and a run that ended before anyone listened is still reported), except a success the
 * socket told whole to a prompt sent from here (see {@link HeardExecution}).
 * @module
 */
import { Pump, type ExecutionState, type FollowedRunEvent, type Logger, type Preview, type TerminalExecutionState } from '@runload/core';
import type { SocketMessage } from './comfyui-socket.js';
import { FOLLOWING, stepFollower, type FollowerEvent, type FollowerState } from './follower-state.js';
import { HeardExecution } from './heard-execution.js';
import { RunProgress } from './run-progress.js';

/** One run followed: its state (one value, moved by {@link stepFollower}) and what carries it out. */
interface Follower {
  readonly runId: string;
  readonly listener: (event: FollowedRunEvent) => void;
  state: FollowerState;
  /** The run's progress as a whole, read from the node and step messages. */
  readonly progress: RunProgress;
  /** One confirmation at a time: news arriving meanwhile (the end messages come in pairs) asks for one more after it. */
  readonly confirmations: Pump;
}

/** Early messages kept per prompt; past it, the last one kept is replaced (an end comes last). */
const EARLY_MESSAGES_KEPT = 8;

function messageEvent(type: string, data: Record<string, unknown>, progress: ReturnType<RunProgress['onMessage']>, outcome: TerminalExecutionState | null): FollowerEvent {
  return {
    type: 'message',
    message: type,
    nodeId: typeof data['node'] === 'string' ? data['node'] : null,
    timestampMs: typeof data['timestamp'] === 'number' ? data['timestamp'] : null,
    progress,
    outcome,
  };
}

export interface FollowerHooks {
  readonly inspect: (runId: string, options: { endAnnounced: boolean }) => Promise<ExecutionState>;
  /** The run id a socket message's prompt id belongs to. */
  readonly runIdOf: (promptId: string) => string;
  /** Whether the socket is connected now (a prompt sent while it is not is not heard from its start). */
  readonly socketConnected: () => boolean;
  /** Whether the server's socket tells a success whole (its version), so its history need not be read. */
  readonly tellsOutcomeOnSocket: () => boolean;
  readonly log: Logger;
}

export class RunFollowers {
  private readonly followers = new Map<string, Follower>();
  /**
   * The progress of prompts sent from here, by run id, until the run is followed to its end: fed
   * from the moment the prompt is sent, so messages before `follow` count too.
   */
  private readonly plans = new Map<string, RunProgress>();
  /**
   * What the server said of prompts sent from here before they were followed, to be taken as said
   * when the follow begins (a few messages: the window between sending and following is short).
   */
  private readonly heardEarly = new Map<string, FollowerEvent[]>();
  /** What the socket told of each prompt sent from here, since it was sent (see {@link HeardExecution}). */
  private readonly heard = new Map<string, HeardExecution>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly hooks: FollowerHooks,
    private readonly confirmIntervalMs: number,
  ) {}

  /** The nodes of a prompt just sent, so its progress can be told as nodes done out of nodes to run. */
  plan(runId: string, nodeIds: readonly string[]): void {
    this.plans.set(runId, new RunProgress(new Set(nodeIds)));
    this.heard.set(runId, new HeardExecution(this.hooks.socketConnected()));
  }

  /** A prompt that was not queued after all (refused, or never sent). */
  unplan(runId: string): void {
    if (this.followers.has(runId)) return;
    this.plans.delete(runId);
    this.heardEarly.delete(runId);
    this.heard.delete(runId);
  }

  follow(runId: string, listener: (event: FollowedRunEvent) => void): () => void {
    const progress = this.plans.get(runId) ?? new RunProgress(null);
    const follower: Follower = {
      runId,
      listener,
      state: FOLLOWING,
      progress,
      confirmations: new Pump(
        () => this.confirmOnce(follower),
        () => follower.state.kind === 'done',
      ),
    };
    const previous = this.followers.get(runId);
    if (previous) this.on(previous, { type: 'stop' });
    this.followers.set(runId, follower);
    this.ensureTimer();
    // A prompt just sent from here is known to be queued, and the socket tells its news in order:
    // what it said before the follow began is taken as said now, and the rest comes after (the
    // timer and reconnections confirm it anyway). Only an end already announced is read at once,
    // from history. Any other run may have ended before anyone listened: asked now.
    const early = this.heardEarly.get(runId) ?? [];
    this.heardEarly.delete(runId);
    if (!this.plans.has(runId)) void this.confirm(follower);
    for (const event of early) this.on(follower, event);
    return () => this.drop(follower);
  }

  /** Re-checks every followed run against the server (after a reconnection, and on the timer). */
  confirmAll(): void {
    for (const f of [...this.followers.values()]) void this.confirm(f);
  }

  /** The socket connected again: what the server said meanwhile is lost, so no prompt sent before is heard whole. */
  reconnected(): void {
    for (const heard of this.heard.values()) heard.broken();
    this.confirmAll();
  }

  onMessage({ type, data }: SocketMessage): void {
    const promptId = data['prompt_id'];
    // The `executing` replay after a reconnection carries no prompt id: the confirmation covers it.
    if (typeof promptId !== 'string') return;
    const runId = this.hooks.runIdOf(promptId);
    const heard = this.heard.get(runId);
    heard?.onMessage(type, data);
    const outcome = type === 'execution_success' && heard && this.hooks.tellsOutcomeOnSocket() ? heard.successOutcome(data) : null;
    const f = this.followers.get(runId);
    if (!f || f.state.kind === 'done') {
      const plan = this.plans.get(runId);
      plan?.onMessage(type, data);
      if (plan && !f) this.hearEarly(runId, messageEvent(type, data, null, outcome));
      return;
    }
    this.on(f, messageEvent(type, data, f.progress.onMessage(type, data), outcome));
  }

  /**
   * Keeps what the server said of a prompt sent from here before it was followed. Its progress was
   * read already (by the plan), so only the news of its start, nodes and end is kept, and only the
   * first few messages: the first start and an end are all the follow needs.
   */
  private hearEarly(runId: string, event: FollowerEvent): void {
    const early = this.heardEarly.get(runId) ?? [];
    if (early.length < EARLY_MESSAGES_KEPT) early.push(event);
    else early[EARLY_MESSAGES_KEPT - 1] = event;
    this.heardEarly.set(runId, early);
  }

  /** A preview image of a prompt: told to the run's follower, if it is followed (nothing is kept). */
  onPreview(promptId: string, preview: Preview): void {
    const f = this.followers.get(this.hooks.runIdOf(promptId));
    if (f) this.tell(f, { type: 'preview', preview });
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const f of this.followers.values()) this.on(f, { type: 'stop' });
    this.followers.clear();
  }

  /** Moves the follower's state on `event` and carries out what the step says. */
  private on(f: Follower, event: FollowerEvent): void {
    const { state, effects } = stepFollower(f.state, event, Date.now());
    f.state = state;
    for (const effect of effects) {
      switch (effect.do) {
        case 'tell':
          this.tell(f, effect.event);
          break;
        case 'confirm':
          void this.confirm(f);
          break;
        case 'confirm-soon':
          setTimeout(() => void this.confirm(f), 250).unref();
          break;
        case 'end':
          this.drop(f);
          f.listener(effect.event);
          break;
      }
    }
  }

  /** One confirmation at a time per run (see {@link Follower.confirmations}); none once it is done. */
  private confirm(f: Follower): Promise<void> {
    if (f.state.kind === 'done') return Promise.resolve();
    return f.confirmations.request();
  }

  private async confirmOnce(f: Follower): Promise<void> {
    if (f.state.kind === 'done') return;
    let state: ExecutionState;
    try {
      state = await this.hooks.inspect(f.runId, { endAnnounced: f.state.endAnnounced });
    } catch (error) {
      // Unreachable for now: the next confirmation retries; the caller decides when that is a loss.
      this.hooks.log('warn', 'could not confirm a followed run', { runId: f.runId, error: (error as Error).message });
      return;
    }
    this.on(f, { type: 'inspected', state });
  }

  /** News for the listener, unless the run is no longer followed (a listener may unfollow as it is told). */
  private tell(f: Follower, event: FollowedRunEvent): void {
    if (f.state.kind !== 'done') f.listener(event);
  }

  private drop(f: Follower): void {
    this.on(f, { type: 'stop' });
    if (this.followers.get(f.runId) === f) {
      this.followers.delete(f.runId);
      this.plans.delete(f.runId);
      this.heardEarly.delete(f.runId);
      this.heard.delete(f.runId);
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
