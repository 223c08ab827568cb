/**
 * The state of one run followed on a ComfyUI server and the one function that moves it. Pure: it
 * decides the next state and what to do (effects, as data); {@link RunFollowers} carries them out
 * and feeds what it learns back as events.
 *
 * ```
 *  following {started, endAnnounced, lastProgress}
 *  ──socket message about the run ──────► following (started once news of execution comes;
 *                                         an end announced is told once as `ended`, and asks
 *                                         for a confirmation)
 *  ──success told whole by the socket ──► done (the last news: finished, with that outcome)
 *  ──confirmation: queued │ running ────► following
 *  ──confirmation: terminal │ unknown ──► done (the last news: finished │ lost)
 *  ──stop (unfollowed, followed anew, closed) ► done
 *  done ──anything ─────────────────────► done (nothing more is told)
 * ```
 * @module
 */
import type { ExecutionEvent, ExecutionState, FollowedRunEvent, TerminalExecutionState } from '@runload/core';
import type { ProgressReading } from './run-progress.js';

export interface Following {
  readonly kind: 'following';
  /** `started` was told (it is told once). */
  readonly started: boolean;
  /** The server announced the end: its history is read first (one request instead of two). */
  readonly endAnnounced: boolean;
  /** The last progress told, so one change is told once (servers say it in two messages). */
  readonly lastProgress: string;
}

export interface Done {
  readonly kind: 'done';
}

export type FollowerState = Following | Done;

export const FOLLOWING: Following = { kind: 'following', started: false, endAnnounced: false, lastProgress: '' };
export const DONE: Done = { kind: 'done' };

export type FollowerEvent =
  /**
   * A socket message about the run: its type, the node it names, its timestamp, the run's
   * progress after it (read by the run's {@link RunProgress}), and, for a success the socket told
   * whole, its outcome (see `HeardExecution`).
   */
  | {
      readonly type: 'message';
      readonly message: string;
      readonly nodeId: string | null;
      readonly timestampMs: number | null;
      readonly progress: ProgressReading | null;
      readonly outcome?: TerminalExecutionState | null;
    }
  /** A confirmation's answer: where the run stands on the server. */
  | { readonly type: 'inspected'; readonly state: ExecutionState }
  | { readonly type: 'stop' };

export type FollowerEffect =
  /** News for the listener. */
  | { readonly do: 'tell'; readonly event: FollowedRunEvent }
  /** Reads the run's record on the server now. */
  | { readonly do: 'confirm' }
  /** Reads it again shortly: the end messages come slightly before the history is written. */
  | { readonly do: 'confirm-soon' }
  /** The last news: the run is no longer followed, then the listener is told. */
  | { readonly do: 'end'; readonly event: ExecutionEvent };

export interface FollowerStep {
  readonly state: FollowerState;
  readonly effects: readonly FollowerEffect[];
}

/** Messages after which the history entry is (or is about to be) written. */
const END_MESSAGES = new Set(['execution_success', 'execution_error', 'execution_interrupted']);
/** Messages that say the run is executing. */
const PROGRESS_MESSAGES = new Set(['progress', 'progress_state']);

/** In state `state`, on `event` at `nowMs`: the next state and what to do. */
export function stepFollower(state: FollowerState, event: FollowerEvent, nowMs: number): FollowerStep {
  if (state.kind === 'done') return { state, effects: [] };
  switch (event.type) {
    case 'stop':
      return { state: DONE, effects: [] };
    case 'message':
      return onMessage(state, event, nowMs);
    case 'inspected':
      return onInspected(state, event.state, nowMs);
  }
}

function onMessage(s: Following, m: Extract<FollowerEvent, { type: 'message' }>, nowMs: number): FollowerStep {
  const effects: FollowerEffect[] = [];
  let next = s;
  const start = (atMs: number) => {
    if (next.started) return;
    next = { ...next, started: true };
    effects.push({ do: 'tell', event: { type: 'started', atMs } });
  };
  if (m.message === 'execution_start') {
    start(m.timestampMs ?? nowMs);
  } else if (m.message === 'executing' && m.nodeId !== null) {
    start(nowMs);
    effects.push({ do: 'tell', event: { type: 'executing', nodeId: m.nodeId } });
  } else if (PROGRESS_MESSAGES.has(m.message)) {
    start(nowMs);
  } else if (m.message === 'executing' || END_MESSAGES.has(m.message)) {
    // A success the socket told whole is the outcome (its end with it): its history, written later, is not waited for.
    if (m.outcome) return { state: DONE, effects: [...effects, { do: 'end', event: { type: 'finished', result: m.outcome } }] };
    // Told once, at the first of them: the server is free for the next prompt before the outcome is read.
    if (!next.endAnnounced) effects.push({ do: 'tell', event: { type: 'ended' } });
    // `executing {node: null}` follows the history write; the end messages precede it slightly.
    next = { ...next, endAnnounced: true };
    effects.push({ do: 'confirm' });
    if (m.message !== 'executing') effects.push({ do: 'confirm-soon' });
  }
  const said = m.progress ? `${m.progress.nodeId}:${m.progress.value}/${m.progress.max}` : '';
  if (m.progress && said !== next.lastProgress) {
    next = { ...next, lastProgress: said };
    effects.push({ do: 'tell', event: { type: 'progress', ...m.progress } });
  }
  return { state: next, effects };
}

function onInspected(s: Following, state: ExecutionState, nowMs: number): FollowerStep {
  switch (state.state) {
    case 'queued':
      return { state: s, effects: [] };
    case 'running':
      return s.started ? { state: s, effects: [] } : { state: { ...s, started: true }, effects: [{ do: 'tell', event: { type: 'started', atMs: nowMs } }] };
    case 'unknown':
      return { state: DONE, effects: [{ do: 'end', event: { type: 'lost' } }] };
    default:
      return { state: DONE, effects: [{ do: 'end', event: { type: 'finished', result: state } }] };
  }
}
