/**
 * The states of one followed run and the one function that moves between them. Pure: it decides
 * the next state and what to do (effects, as data); {@link FollowedRun} carries the effects out
 * and feeds their results back as events.
 *
 * ```
 * states:  waiting (claimed while the run before it holds the backend; its prompt waits)
 *          submitting {cancelPending}
 *          sent {cancelSent, timedOut, interruptSent, unreachableSince, finishFailures, lastProgress, endedOnBackend}
 *          finishing {result, the sent state to go back to}
 *          settled
 *
 *  claimed ───► submitting, or waiting when the backend is full of this dispatcher's runs
 *  waiting ────backend free ───────────────────────────────────► submitting
 *  waiting ────cancel ─────────────────────────────────────────► settled (canceled: never sent)
 *  waiting ────hand back (backend gone, past its queue time) ─► settled (queued again)
 *  taken over ► submitting, then accepted at once (its prompt is on the backend already)
 *  submitting ─accepted ──────────────────────────────────────► sent
 *  submitting ─refused │ input gone │ claim lost │ unreachable │ error ► settled
 *  sent ───────ended ──────────────────────────────────────────► sent, no longer taking a place on its backend
 *  sent ───────finished │ terminal state read ────────────────► finishing
 *  sent ───────cancel failed │ interrupt failed ───────────────► sent (sent again at the next sweep)
 *  sent ───────lost │ "unknown" │ unreachable past grace │
 *              cancel answered "gone" ────────────────────────► settled
 *  finishing ──stored │ store failed, no try left ─────────────► settled
 *  finishing ──store failed, tries left ───────────────────────► sent (ended on its backend)
 *  any ────────stop ───────────────────────────────────────────► settled
 *
 * a run settled as lost (`lose`), by what it is then (`whenLost`):
 *  never started ─────────────────────────► queued again (no attempt counted)
 *  a cancel asked ────────────────────────► canceled (a cancel wins over a failover)
 *  started, attempts left ────────────────► failover: waits, still running, for another backend
 *  started, no attempt left ──────────────► failed BACKEND_LOST
 * ```
 * @module
 */
import { CoreError } from '../../domain/errors.js';
import type { RunError, RunStatus } from '../../domain/run.js';
import type { ExecutionEvent, ExecutionState, TerminalExecutionState } from '../../ports/executor.js';

/**
 * Claimed with a slot of its own on a backend that the runs before it fill: the prompt goes the
 * moment one of them is done there, with no claim between (the GPU does not wait for one).
 */
export interface Waiting {
  readonly kind: 'waiting';
}

/** The prompt is on its way to the backend, which cannot know the run yet. */
export interface Submitting {
  readonly kind: 'submitting';
  /** A cancel came meanwhile: it is sent once the backend has the prompt. */
  readonly cancelPending: boolean;
}

/** The backend has the prompt; this dispatcher follows it. */
export interface Sent {
  readonly kind: 'sent';
  readonly cancelSent: boolean;
  /** The run went past its time limit and was interrupted: an interruption then fails it RUN_TIMEOUT. */
  readonly timedOut: boolean;
  /** The interrupt at the time limit reached the backend (or is on its way); a failed one is sent again. */
  readonly interruptSent: boolean;
  /** Since when the backend has not answered a reconciliation (null while it answers). */
  readonly unreachableSinceMs: number | null;
  /** Attempts to store the outcome that failed; each sweep tries again, up to a limit. */
  readonly finishFailures: number;
  /** When progress was last written (it is throttled). */
  readonly lastProgressMs: number;
  /** The running node the last written progress named: a node that starts is always written. */
  readonly lastProgressNodeId: string | null;
  /**
   * The backend announced the run's end: it executes nothing more of it, so the run no longer
   * takes a place there, though its outcome is still to be read.
   */
  readonly endedOnBackend: boolean;
}

/** The backend is done; the outcome is being stored. Events and reconciliations leave it alone. */
export interface Finishing {
  readonly kind: 'finishing';
  readonly result: TerminalExecutionState;
  /** The following as it was, to go back to should storing fail. */
  readonly sent: Sent;
}

/** Nothing more happens to this following; a later one of the same run is another object. */
export interface Settled {
  readonly kind: 'settled';
}

export type FollowState = Waiting | Submitting | Sent | Finishing | Settled;

export type FollowEvent =
  /** A waiting run's backend has room for it now. */
  | { readonly type: 'backend-free' }
  /** A waiting run goes back to the queue: its backend takes no more work (drained, removed, unreachable), or it waited past its queue time. */
  | { readonly type: 'hand-back'; readonly why: string }
  /** The backend has the prompt (sent by this dispatcher, or by a dead one whose run was taken over). */
  | { readonly type: 'accepted' }
  | { readonly type: 'refused'; readonly error: RunError }
  | { readonly type: 'submit-failed'; readonly error: unknown }
  | { readonly type: 'cancel-requested' }
  /** Where the run stood on the backend right after the cancel was sent. */
  | { readonly type: 'cancel-answered'; readonly state: ExecutionState }
  /** The cancel did not reach the backend: the next cancel request (every sweep makes one) sends it again. */
  | { readonly type: 'cancel-failed'; readonly error: unknown }
  /** The interrupt at the time limit did not reach the backend: the next sweep sends it again. */
  | { readonly type: 'interrupt-failed'; readonly error: unknown }
  | { readonly type: 'backend'; readonly event: ExecutionEvent }
  /** A reconciliation's answer, with the run's status as stored. */
  | { readonly type: 'inspected'; readonly state: ExecutionState; readonly runStatus: RunStatus }
  | { readonly type: 'unreachable' }
  | { readonly type: 'over-time-limit' }
  | { readonly type: 'stored' }
  | { readonly type: 'store-failed'; readonly error: unknown }
  | { readonly type: 'stop' };

/** How a following that ends without an outcome from the backend leaves its run. */
export type Settlement =
  | { readonly how: 'failed'; readonly error: RunError }
  | { readonly how: 'canceled' }
  /** Queued again if it never started, canceled if that was asked, else lost with `message`. */
  | { readonly how: 'lose'; readonly message: string }
  /** Queued again, on no backend; `why` is logged. */
  | { readonly how: 'requeue'; readonly why: string }
  /** The claim was lost mid-submit: canceled if the run is canceling and still ours, else left to its owner. */
  | { readonly how: 'claim-lost' }
  /** The outcome could not be stored after every attempt. */
  | { readonly how: 'give-up'; readonly result: TerminalExecutionState; readonly reason: string };

/** What becomes of a run whose following was settled as lost. */
export type LostOutcome = 'requeue' | 'cancel' | 'failover' | 'fail';

/**
 * The run as it stands when its backend lost it (read after the following settled), and how many
 * dispatches a run may have in all: pure, like {@link step}.
 */
export function whenLost(run: { readonly status: RunStatus; readonly cancelRequested: boolean; readonly attempts: number }, maxAttempts: number): LostOutcome {
  if (run.status === 'queued' && !run.cancelRequested) return 'requeue';
  if (run.cancelRequested) return 'cancel';
  if (run.status === 'running' && run.attempts < maxAttempts) return 'failover';
  return 'fail';
}

export type Effect =
  /** Sends the prompt of a run that waited for its backend. */
  | { readonly do: 'submit' }
  | { readonly do: 'follow' }
  | { readonly do: 'send-cancel' }
  /** Interrupts the run on the backend (its time limit passed). */
  | { readonly do: 'interrupt' }
  | { readonly do: 'record-started' }
  | { readonly do: 'record-progress'; readonly value: number; readonly max: number; readonly nodeId: string | null }
  | { readonly do: 'store'; readonly result: TerminalExecutionState; readonly timedOut: boolean }
  | { readonly do: 'settle'; readonly settlement: Settlement }
  /** Reports an error (logged); the state already says what happens next. */
  | { readonly do: 'report'; readonly message: string; readonly error: unknown };

export interface StepEnv {
  readonly nowMs: number;
  readonly backendGraceMs: number;
  readonly progressWriteMs: number;
  readonly outputReadAttempts: number;
}

export interface Step {
  readonly state: FollowState;
  readonly effects: readonly Effect[];
}

export const WAITING: Waiting = { kind: 'waiting' };
export const SUBMITTING: Submitting = { kind: 'submitting', cancelPending: false };
const SETTLED: Settled = { kind: 'settled' };
const FRESH: Sent = { kind: 'sent', cancelSent: false, timedOut: false, interruptSent: false, unreachableSinceMs: null, finishFailures: 0, lastProgressMs: 0, lastProgressNodeId: null, endedOnBackend: false };

const stay = (state: FollowState): Step => ({ state, effects: [] });
const settle = (settlement: Settlement): Step => ({ state: SETTLED, effects: [{ do: 'settle', settlement }] });
const finish = (s: Sent, result: TerminalExecutionState): Step => ({
  state: { kind: 'finishing', result, sent: s },
  effects: [{ do: 'store', result, timedOut: s.timedOut }],
});
const isTerminal = (state: ExecutionState): state is TerminalExecutionState =>
  state.state === 'succeeded' || state.state === 'failed' || state.state === 'interrupted';
const FORGOT = 'The backend forgot the run after it started';

/** In state `state`, on `event`: the next state and what to do. Events a state does not expect change nothing. */
export function step(state: FollowState, event: FollowEvent, env: StepEnv): Step {
  if (state.kind === 'settled') return stay(state);
  if (event.type === 'stop') return stay(SETTLED);
  switch (state.kind) {
    case 'waiting':
      return fromWaiting(state, event);
    case 'submitting':
      return fromSubmitting(state, event);
    case 'sent':
      return fromSent(state, event, env);
    case 'finishing':
      return fromFinishing(state, event, env);
  }
}

function fromWaiting(s: Waiting, event: FollowEvent): Step {
  switch (event.type) {
    case 'backend-free':
      return { state: SUBMITTING, effects: [{ do: 'submit' }] };
    case 'cancel-requested':
      // No backend has heard of it: nothing to take back.
      return settle({ how: 'canceled' });
    case 'hand-back':
      return settle({ how: 'requeue', why: event.why });
    default:
      return stay(s);
  }
}

function fromSubmitting(s: Submitting, event: FollowEvent): Step {
  switch (event.type) {
    case 'accepted':
      return s.cancelPending
        ? { state: { ...FRESH, cancelSent: true }, effects: [{ do: 'follow' }, { do: 'send-cancel' }] }
        : { state: FRESH, effects: [{ do: 'follow' }] };
    case 'refused':
      return settle({ how: 'failed', error: event.error });
    case 'submit-failed':
      // Canceled while its media were uploaded: the prompt was never sent (claim lost covers both).
      if (CoreError.hasCode(event.error, 'INVALID_TRANSITION')) return settle({ how: 'claim-lost' });
      if (CoreError.hasCode(event.error, 'SERVICE_UNAVAILABLE')) return settle({ how: 'requeue', why: 'backend unreachable at submit; run queued again' });
      // An input deleted before the prompt was built: no later attempt can do better.
      if (CoreError.hasCode(event.error, 'ASSET_NOT_FOUND')) {
        return settle({ how: 'failed', error: { code: 'VALIDATION_ERROR', message: (event.error as Error).message, nodeId: null, nodeType: null } });
      }
      // Dropped: its lease lapses and a sweep (of any instance) settles it with its backend.
      return { state: SETTLED, effects: [{ do: 'report', message: 'dispatcher task failed', error: event.error }] };
    case 'cancel-requested':
      // Asked now, a backend the prompt has not reached yet would say it never heard of the run.
      return stay({ ...s, cancelPending: true });
    default:
      return stay(s);
  }
}

function fromSent(s: Sent, event: FollowEvent, env: StepEnv): Step {
  switch (event.type) {
    case 'cancel-requested':
      return s.cancelSent ? stay(s) : { state: { ...s, cancelSent: true }, effects: [{ do: 'send-cancel' }] };
    case 'cancel-answered':
      // A prompt removed from the backend's queue never reports again: settled from its state.
      if (event.state.state === 'unknown' || event.state.state === 'queued') return settle({ how: 'canceled' });
      return isTerminal(event.state) ? finish(s, event.state) : stay(s);
    case 'cancel-failed':
      return { state: { ...s, cancelSent: false }, effects: [{ do: 'report', message: 'could not cancel the run on its backend; the next sweep tries again', error: event.error }] };
    case 'interrupt-failed':
      return { state: { ...s, interruptSent: false }, effects: [{ do: 'report', message: 'could not interrupt the run over its time limit; the next sweep tries again', error: event.error }] };
    case 'backend':
      return onBackendEvent(s, event.event, env);
    case 'inspected': {
      const answering: Sent = { ...s, unreachableSinceMs: null };
      if (event.state.state === 'unknown') return settle({ how: 'lose', message: FORGOT });
      if (isTerminal(event.state)) return finish(answering, event.state);
      if (event.state.state === 'running' && event.runStatus === 'queued') {
        return { state: answering, effects: [{ do: 'record-started' }] };
      }
      return stay(answering);
    }
    case 'unreachable': {
      const since = s.unreachableSinceMs ?? env.nowMs;
      if (env.nowMs - since >= env.backendGraceMs) return settle({ how: 'lose', message: 'The backend became unreachable while it held the run' });
      return stay({ ...s, unreachableSinceMs: since });
    }
    case 'over-time-limit':
      return s.interruptSent ? stay(s) : { state: { ...s, timedOut: true, interruptSent: true }, effects: [{ do: 'interrupt' }] };
    default:
      return stay(s);
  }
}

function onBackendEvent(s: Sent, event: ExecutionEvent, env: StepEnv): Step {
  switch (event.type) {
    case 'started':
      return { state: s, effects: [{ do: 'record-started' }] };
    case 'executing':
      return stay(s);
    case 'ended':
      return s.endedOnBackend ? stay(s) : stay({ ...s, endedOnBackend: true });
    case 'progress': {
      // Written at most every progressWriteMs, and always when the run completes or a node starts:
      // a node without steps reports nothing more, so a skipped start would leave the run naming
      // no node (or the one before) until the next node ends.
      const starts = event.nodeId !== null && event.nodeId !== s.lastProgressNodeId;
      const due = env.nowMs - s.lastProgressMs >= env.progressWriteMs || event.value >= event.max || starts;
      if (!due) return stay(s);
      return { state: { ...s, lastProgressMs: env.nowMs, lastProgressNodeId: event.nodeId }, effects: [{ do: 'record-progress', value: event.value, max: event.max, nodeId: event.nodeId }] };
    }
    case 'finished':
      return finish(s, event.result);
    case 'lost':
      return settle({ how: 'lose', message: FORGOT });
  }
}

function fromFinishing(s: Finishing, event: FollowEvent, env: StepEnv): Step {
  switch (event.type) {
    case 'stored':
      return stay(SETTLED);
    case 'store-failed': {
      // Nothing is lost: back to sent, and the next sweep reads the outcome again. Outputs that stay
      // unreadable while the backend answers mean the backend lost them. The backend is done with
      // the run (it gave its outcome), so the run takes no place there meanwhile.
      const failures = s.sent.finishFailures + 1;
      if (failures < env.outputReadAttempts || !CoreError.hasCode(event.error, 'SERVICE_UNAVAILABLE')) {
        return { state: { ...s.sent, finishFailures: failures, endedOnBackend: true }, effects: [{ do: 'report', message: 'could not store a finished run; the next sweep tries again', error: event.error }] };
      }
      return settle({ how: 'give-up', result: s.result, reason: (event.error as Error).message });
    }
    default:
      return stay(s);
  }
}
