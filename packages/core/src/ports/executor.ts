/**
 * The execution backend pool (ComfyUI servers). The dispatcher drives each run through it:
 * submit, follow, inspect (to reconcile after any doubt), fetch outputs, cancel.
 * @module
 */
import type { RunInputs, RunError } from '../domain/run.js';
import type { Workflow } from '../domain/app-version.js';
import type { Preview } from './preview-store.js';
import type { BackendCredentials, BackendLabels } from '../domain/backend.js';

export interface BackendHealth {
  readonly id: string;
  readonly url: string;
  readonly healthy: boolean;
  readonly detail?: string;
  /** `system.comfyui_version` from its last probe, when the executor knows it. */
  readonly comfyuiVersion?: string | null;
  /** A hash of its last-read node classes and model lists, when the executor knows it. */
  readonly capabilitiesHash?: string | null;
  /** When it last answered (epoch ms), when the executor knows it. */
  readonly lastSeenAtMs?: number | null;
}

/** A reachable backend as placement sees it. */
export interface BackendPlacement {
  readonly id: string;
  /** Prompts on its queue that other clients put there (not runload's). */
  readonly foreignPrompts: number;
  /** Prompts it may hold at once; null or absent keeps the deployment's depth. */
  readonly depth?: number | null;
}

/** What capability is judged on: the run's workflow with its inputs, and the labels it requires. */
export interface RunnableWork {
  readonly workflow: Workflow;
  readonly inputs: RunInputs;
  readonly requireLabels?: BackendLabels;
}

/** A backend of the pool as the registry holds it: what an executor following the pool is told. */
export interface PoolMember {
  /** Also the backend's id for the executor (runs name their backend by it). */
  readonly url: string;
  /** False while it drains: it finishes what it holds and gets no new prompt. */
  readonly accepting: boolean;
  readonly labels: BackendLabels;
  readonly depth: number | null;
  readonly auth: BackendCredentials | null;
}

export interface ExecutorHealth {
  /** True when at least one backend can take work. */
  readonly available: boolean;
  readonly backends: readonly BackendHealth[];
}

/** A media input to hand to the backend (the bytes of one of the caller's assets). */
export interface MediaFile {
  readonly assetId: string;
  readonly filename: string;
  readonly contentType: string;
  open(): Promise<AsyncIterable<Uint8Array>>;
}

export interface ExecutionJob {
  /** Also the backend's prompt id, where the backend honours a client id. */
  readonly runId: string;
  readonly workflow: Workflow;
  /** Validated inputs; media inputs carry asset ids, resolved through `media`. */
  readonly inputs: RunInputs;
  readonly media: Readonly<Record<string, MediaFile>>;
  /**
   * Asked right before the prompt is sent (after the media are uploaded): false means this
   * dispatcher no longer holds the run, and the prompt must not be sent.
   */
  readonly stillClaimed?: () => Promise<boolean>;
}

/** Thrown by `submit` when `stillClaimed` said no: nothing was queued. */
export const CLAIM_LOST = 'claim lost before the prompt was sent';

/** Execution time as the backend measured it (epoch ms). */
export interface BackendTiming {
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
}

/** One file a run produced, as the backend names it. */
export interface OutputRef {
  readonly nodeId: string;
  readonly filename: string;
  readonly subfolder: string;
  readonly type: string;
}

export type TerminalExecutionState =
  | { readonly state: 'succeeded'; readonly outputs: readonly OutputRef[]; readonly timing: BackendTiming | null }
  | { readonly state: 'failed'; readonly error: RunError; readonly timing: BackendTiming | null }
  | { readonly state: 'interrupted'; readonly timing: BackendTiming | null };

export type ExecutionState =
  | { readonly state: 'queued'; readonly position: number }
  | { readonly state: 'running' }
  | TerminalExecutionState
  /** The backend does not know the run (never received, or forgotten by a restart). */
  | { readonly state: 'unknown' };

/**
 * What `follow` reports. `finished` and `lost` are terminal: exactly one of them ends a follow.
 * `started` comes at most once; `executing` and `progress` are informational and may be missed
 * (a dropped socket), never the terminal event.
 */
export type ExecutionEvent =
  | { readonly type: 'started'; readonly atMs: number }
  /** The backend began executing this node of the run. */
  | { readonly type: 'executing'; readonly nodeId: string }
  | { readonly type: 'progress'; readonly value: number; readonly max: number; readonly nodeId: string | null }
  /**
   * The backend announced that it finished executing the run: it runs nothing more of it, so its
   * place on the backend is free, though the outcome (`finished`) is still to be read. May not come.
   */
  | { readonly type: 'ended' }
  | { readonly type: 'finished'; readonly result: TerminalExecutionState }
  /** The backend does not know the run (it restarted, or the run was removed there). */
  | { readonly type: 'lost' };

/**
 * A preview image of a followed run (a sampler's latent preview, an image a node sent), as the
 * backend sent it. Informational like progress: it changes nothing of the run's state and may be
 * missed, and a follow reports any number of them until its terminal event.
 */
export interface ExecutionPreview {
  readonly type: 'preview';
  readonly preview: Preview;
}

/** What a follow's listener hears: the run's events, and its previews. */
export type FollowedRunEvent = ExecutionEvent | ExecutionPreview;

export type SubmitResult = { readonly accepted: true } | { readonly accepted: false; readonly error: RunError };

/** An output's bytes, read from the backend. */
export interface FetchedOutput {
  readonly filename: string;
  readonly contentType: string;
  open(): Promise<AsyncIterable<Uint8Array>>;
}

export interface Executor {
  /** The pool's current reachability; cheap (served from the last probe). */
  health(): Promise<ExecutorHealth>;
  /**
   * The reachable backends a run may be placed on now, each with the prompts other clients hold
   * there (they count against its depth). Served from the last probe: no I/O.
   */
  placement(): readonly BackendPlacement[];
  /**
   * What `backendId` lacks to run this work (by its last-read node classes and model lists), or
   * null when it can run it. A backend whose capabilities are not known yet lacks nothing.
   */
  lacks(backendId: string, work: RunnableWork): string | null;
  /**
   * What no configured backend has for this work (`no backend has checkpoint x.safetensors`), or
   * null when at least one can run it (or none has been read yet).
   */
  missingEverywhere(work: RunnableWork): string | null;
  /**
   * Uploads the media, applies the inputs (never changing `job.workflow`) and queues the prompt on
   * `backendId` under the run's id. A refusal of the prompt (validation) is `{ accepted: false }`
   * with VALIDATION_ERROR and the backend's node errors in `details`; so is a prompt the backend
   * accepted while dropping some of its nodes for failing validation (what it queued is removed
   * again before the refusal is reported).
   * @throws CoreError SERVICE_UNAVAILABLE when the backend cannot be reached and did not queue the
   *   prompt (the run never started: it may be dispatched again)
   * @throws CoreError INVALID_TRANSITION ({@link CLAIM_LOST}) when `stillClaimed` said no
   */
  submit(backendId: string, job: ExecutionJob): Promise<SubmitResult>;
  /**
   * Where the run stands on the backend, read from its queue then its history (a run finishing
   * between the two reads is never reported unknown). `unknown` means the backend has no trace of
   * it: never received, removed from its queue, or forgotten by a restart. Terminal states carry
   * the backend's own execution timestamps when it reports them.
   * @throws CoreError SERVICE_UNAVAILABLE when the backend cannot be reached or is not configured
   */
  inspect(backendId: string, runId: string): Promise<ExecutionState>;
  /**
   * Reports the run's events until one `finished` or `lost`, then nothing more; robust to a silent
   * or broken connection (outcomes are confirmed by `inspect`, so a run that finished before the
   * call is still reported). A backend that is unreachable for a while reports nothing: deciding
   * when that loses the run is the caller's. Returns a function that stops following.
   */
  follow(backendId: string, runId: string, listener: (event: FollowedRunEvent) => void): () => void;
  /**
   * An output file of a finished run: its name, its content type (from its extension, else the
   * backend's header) and a way to stream its bytes. `signal` aborts the download, at any point
   * of it (a stopping dispatcher leaves the outcome to the next owner rather than wait for it).
   * @throws CoreError SERVICE_UNAVAILABLE when the backend cannot be reached or no longer has the file
   */
  fetchOutput(backendId: string, ref: OutputRef, options?: { readonly signal?: AbortSignal }): Promise<FetchedOutput>;
  /**
   * Removes the run from the backend's queue, or interrupts it if it is running there (only that
   * run: never another prompt). A run the backend no longer has is left alone. The outcome is
   * then read with `inspect` or reported by `follow` (`interrupted`).
   * @throws CoreError SERVICE_UNAVAILABLE when the backend cannot be reached
   */
  cancel(backendId: string, runId: string): Promise<void>;
  /**
   * The pool as the registry holds it now (every instance is told within seconds of a change):
   * backends that appear are probed and used, those that go are dropped (a run followed there is
   * then unknown to the pool: lost), a draining one keeps its runs but is offered no more. An
   * executor without it keeps the backends it was built with. Resolves once the backends new to
   * it were probed once.
   */
  usePool?(members: readonly PoolMember[]): Promise<void>;
  /** Stops probes, sockets and timers. */
  close(): Promise<void>;
}

export const EXECUTOR = Symbol.for('runload.core.Executor');
