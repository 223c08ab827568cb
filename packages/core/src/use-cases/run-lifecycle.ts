/**
 * Every state change of a run after creation, with its metering: started, progress, finished
 * (outputs stored as assets of the run's owner; the GPU time it took is charged by the write that
 * records the finish, see `RunRepository.update`), failed, canceled, expired,
 * lost, re-queued. Each change is a compare-and-set on the status, so a status never moves
 * backwards and repeating a step after a crash is harmless; each change made is announced, with
 * the record it left, to the run's live streams on every instance.
 * @module
 */
import { mediaKindOf, sanitizeFilename, type Asset } from '../domain/asset.js';
import { DEFAULT_LIMITS, expiryOf, type RetentionConfig } from '../domain/limits.js';
import { outputAssetId } from '../domain/output-asset-id.js';
import { runChangeOf } from '../domain/run-change.js';
import type { Run, RunError, RunOutput, RunProgress, RunStatus } from '../domain/run.js';
import type { AssetRepository } from '../ports/asset-repository.js';
import type { BlobStore, StagedBlob } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';
import type { RunRepository } from '../ports/run-repository.js';
import { WORK_REASONS, type WorkSignal } from '../ports/work-signal.js';
import { mapAtMost } from '../system/map-at-most.js';

/** Execution time as the backend measured it (epoch ms). */
export interface ExecutionTiming {
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
}

/** One output file to store, read from the backend. */
export interface OutputFile {
  readonly nodeId: string;
  readonly filename: string;
  readonly contentType: string;
  open(): Promise<AsyncIterable<Uint8Array>>;
}

/** Outputs are files the backend made; this caps one file so a runaway node cannot fill the disk. */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024 * 1024;

const ACTIVE: readonly RunStatus[] = ['queued', 'running', 'canceling'];

/** Outputs of one run downloaded and stored at once. */
const OUTPUTS_AT_ONCE = 4;

export class RunLifecycle {
  constructor(
    private readonly runs: RunRepository,
    private readonly assets: AssetRepository,
    private readonly blobs: BlobStore,
    private readonly signal: WorkSignal,
    private readonly clock: Clock,
    private readonly retention: RetentionConfig = DEFAULT_LIMITS.retention,
  ) {}

  /**
   * queued → running when the backend says it started. The time is runload's own: a backend's
   * clock may be off by hours, and the run's time limit counts from this start; the backend's own
   * timestamps only measure durations (see `finish`).
   */
  async started(run: Run): Promise<Run | null> {
    const startedAt = this.clock.now();
    return this.announced(
      await this.runs.update(
        run.id,
        { status: 'running', startedAt, metrics: { ...run.metrics, queueMs: Math.max(0, startedAt.getTime() - run.createdAt.getTime()) } },
        { status: ['queued'] },
      ),
    );
  }

  /** Progress of the node that is executing. */
  async progress(run: Run, progress: RunProgress): Promise<Run | null> {
    return this.announced(await this.runs.update(run.id, { progress }, { status: ['running', 'canceling'] }));
  }

  /**
   * Stores the outputs, then marks the run succeeded, which reveals the outputs' records and
   * charges the GPU time in the same write. Like every finished run it keeps its last progress, here
   * completed (value = max); null if none was ever reported.
   */
  async succeeded(run: Run, files: readonly OutputFile[], timing: ExecutionTiming): Promise<Run | null> {
    // Downloaded and stored side by side: a batch of images from a GPU server across a network
    // would otherwise wait for each round trip in turn.
    const outputs = await mapAtMost(files, OUTPUTS_AT_ONCE, (file, index) => this.storeOutput(run, index, file));
    const progress = run.progress ? { value: run.progress.max, max: run.progress.max, nodeId: null } : null;
    return this.finish(run, 'succeeded', timing, { outputs, progress });
  }

  /** A backend-side failure (validation, node error, timeout). Charged when it ran. */
  async failed(run: Run, error: RunError, timing: ExecutionTiming | null): Promise<Run | null> {
    return this.finish(run, 'failed', timing, { error });
  }

  /** The run stopped on a cancel. Charged for the time it ran, if it ran. */
  async canceled(run: Run, timing: ExecutionTiming | null): Promise<Run | null> {
    return this.finish(run, 'canceled', timing, {});
  }

  /** The backend forgot a run that had started: failed with BACKEND_LOST, not charged. */
  async lost(run: Run, message: string): Promise<Run | null> {
    const error: RunError = { code: 'BACKEND_LOST', message, nodeId: null, nodeType: null };
    return this.finish(run, 'failed', null, { error });
  }

  /**
   * The backend executed the run but its outputs cannot be read back (it refuses or lost the
   * files): failed with OUTPUTS_UNREADABLE and charged, since the GPU did the work.
   */
  async outputsUnreadable(run: Run, timing: ExecutionTiming, reason: string): Promise<Run | null> {
    const error: RunError = { code: 'OUTPUTS_UNREADABLE', message: `The run executed but its outputs could not be read from the backend: ${shorten(reason)}`, nodeId: null, nodeType: null };
    return this.finish(run, 'failed', timing, { error });
  }

  /** The backend went away before the run started: it waits for dispatch again, at no cost. */
  async requeue(run: Run): Promise<Run | null> {
    // Taken back before it started: that dispatch is not one of its attempts.
    const updated = await this.runs.update(
      run.id,
      { backendId: null, leaseOwner: null, leaseExpiresAt: null, progress: null, attempts: Math.max(0, run.attempts - 1) },
      { status: ['queued'] },
    );
    this.announced(updated);
    if (updated) this.signal.notify(WORK_REASONS.runRequeued);
    return updated;
  }

  /**
   * The backend lost a run that had started, and it may have another attempt: it waits for
   * another backend, ahead of the queue, still `running` (a status never moves backwards, and
   * `run.started` is not reported again). The lost attempt costs nothing.
   */
  async failover(run: Run): Promise<Run | null> {
    const updated = await this.runs.update(run.id, { backendId: null, leaseOwner: null, leaseExpiresAt: null, progress: null }, { status: ['running'] });
    this.announced(updated);
    if (updated) this.signal.notify(WORK_REASONS.runFailedOver);
    return updated;
  }

  /** Queued runs that never started within `maxQueueSeconds` become expired (not charged). */
  async expireStale(maxQueueSeconds: number, limit = 100): Promise<number> {
    const cutoff = new Date(this.clock.nowMs() - maxQueueSeconds * 1000);
    let count = 0;
    for (const run of await this.runs.listQueuedBefore(cutoff, limit)) {
      if (run.backendId !== null) continue; // in a backend's queue: the dispatcher removes it first
      if (await this.finish(run, 'expired', null, {})) count += 1;
    }
    return count;
  }

  private async finish(
    run: Run,
    status: 'succeeded' | 'failed' | 'canceled' | 'expired',
    timing: ExecutionTiming | null,
    patch: { outputs?: RunOutput[]; error?: RunError; progress?: RunProgress | null },
  ): Promise<Run | null> {
    const finishedAt = this.clock.now();
    const runMs = executionMs(run, timing, finishedAt.getTime());
    const gpuSeconds = runMs === null ? null : runMs / 1000;
    const startedAt = run.startedAt ?? (runMs !== null ? new Date(finishedAt.getTime() - runMs) : null);
    const updated = await this.runs.update(
      run.id,
      {
        ...patch,
        status,
        startedAt,
        finishedAt,
        leaseOwner: null,
        leaseExpiresAt: null,
        metrics: {
          queueMs: run.metrics.queueMs ?? (startedAt ? Math.max(0, startedAt.getTime() - run.createdAt.getTime()) : null),
          runMs,
          gpuSeconds,
        },
      },
      { status: ACTIVE },
    );
    // The change before the work: a stream shows the terminal record as it was made.
    this.announced(updated);
    // From the dispatcher that held the run, if one did: it already looked for the next run when
    // the backend was done with this one.
    if (updated) this.signal.notify(run.webhook ? WORK_REASONS.runWithWebhookFinished : WORK_REASONS.runFinished, run.leaseOwner ?? undefined);
    return updated;
  }

  /** Announces the record a change left (none when the compare-and-set found the run moved on). */
  private announced(updated: Run | null): Run | null {
    if (updated) this.signal.announce(runChangeOf(updated));
    return updated;
  }

  private async storeOutput(run: Run, index: number, file: OutputFile): Promise<RunOutput> {
    const staged = await file.open().then((source) => this.blobs.stage(source, { maxBytes: MAX_OUTPUT_BYTES }));
    const asset = await this.writeAsset(run, outputAssetId(run.id, index), file, staged);
    return { assetId: asset.id, filename: asset.filename, contentType: asset.contentType, size: asset.size, nodeId: file.nodeId };
  }

  private async writeAsset(run: Run, id: string, file: OutputFile, staged: StagedBlob): Promise<Asset> {
    const contentType = mediaKindOf(file.contentType) ? file.contentType : 'application/octet-stream';
    const now = this.clock.now();
    const asset: Asset = {
      id,
      accountId: run.accountId,
      filename: sanitizeFilename(file.filename),
      contentType,
      size: staged.size,
      sha256: staged.sha256,
      blake3: staged.blake3,
      createdAt: now,
      origin: 'output',
      expiresAt: expiryOf('output', now, this.retention),
    };
    // The record before the bytes, as for uploads (the retention sweep relies on that order),
    // hidden until the write that makes the run succeeded reveals it (the bytes are durable by then).
    try {
      await this.assets.createPending(asset);
    } catch (error) {
      const earlier = await this.storedEarlier(id, staged);
      if (earlier) return earlier;
      throw error;
    }
    try {
      await staged.commit();
    } catch (error) {
      await staged.discard();
      await this.assets.delete(id);
      await this.assets.deleteBlobIfUnreferenced(asset.sha256, () => this.blobs.delete(asset.sha256));
      throw error;
    }
    return asset;
  }

  /**
   * The record an earlier attempt wrote under this id (a retry, or a dispatcher that died after
   * writing it), asked only once a create failed since it almost never exists. The bytes are
   * committed again when they are the same (a process killed between the record and the bytes
   * left a pending record without them); the run's finishing write reveals the record.
   */
  private async storedEarlier(id: string, staged: StagedBlob): Promise<Asset | null> {
    const existing = await this.assets.get(id, { includePending: true }).catch(() => null);
    if (existing?.sha256 !== staged.sha256) {
      await staged.discard();
      return existing;
    }
    await staged.commit();
    return existing;
  }
}

/** Room for a clock stepped while a run executes. */
const CLOCK_SLACK_MS = 60_000;

/**
 * How long the run executed, in ms. The backend's own timestamps measure it when they are sane:
 * finite, in order, and no longer than the run has existed by runload's clock, give or take a
 * minute (a backend's values are input: one of ±1e308 must not charge an infinite time).
 * Otherwise runload's own observation from the start it recorded. Null (not charged) without
 * timing, or without a recorded start.
 */
export function executionMs(run: Run, timing: ExecutionTiming | null, nowMs: number): number | null {
  if (timing === null) return null;
  const ms = timing.finishedAtMs - timing.startedAtMs;
  if (Number.isFinite(ms) && ms >= 0 && ms <= nowMs - run.createdAt.getTime() + CLOCK_SLACK_MS) return ms;
  if (run.startedAt === null) return null;
  return Math.max(0, nowMs - run.startedAt.getTime());
}

/** Error texts can carry a run's inputs (a file name made of a long prompt): never store or show them whole. */
function shorten(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
