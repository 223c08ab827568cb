import { isFailingOver, isTerminal, isWaiting, placeInQueue, type Run } from '../domain/run.js';
import type { Workflow } from '../domain/app-version.js';
import type { BackendUsage, ClaimRequest, FreeBackend, RunPage, RunPatch, RunRepository, RunUpdateGuard, RunWithQueuePosition } from '../ports/run-repository.js';
import { fairShareOrder } from '../domain/fair-share.js';
import { decodeRunCursor, encodeRunCursor } from '../domain/run-cursor.js';
import type { AuditEntry } from '../domain/audit.js';
import type { RunStatus } from '../domain/run.js';
import { InMemoryAuditLog } from './in-memory-audit-log.js';

/** Newest first: createdAt descending, then id descending. */
function newestFirst(a: Run, b: Run): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function oldestFirst(a: Run, b: Run): number {
  return -newestFirst(a, b);
}

const ESTIMATE_WINDOW = 20;

export class InMemoryRunRepository implements RunRepository {
  private readonly rows = new Map<string, Run>();
  /** Per backend, the last run placed there (warm placement). */
  private readonly placed = new Map<string, { lastAppVersionId: string; lastPlacedAtMs: number }>();
  /** Runs claimed to wait for room on their backend, their prompt not sent yet (not held there). */
  private readonly waitingForRoom = new Set<string>();
  // Integrations: the in-memory outbox records events in the same step as the change (as the SQL triggers do).
  private readonly changeListeners = new Set<(before: Run, after: Run) => void>();

  /**
   * `workflowOf` gives an app version's workflow, which a claim places runs with (a database reads
   * it from the version's row). Without it, or for a version it does not know, the workflow is
   * empty: such a run lacks nothing on any backend.
   */
  constructor(
    private readonly audit: InMemoryAuditLog = new InMemoryAuditLog(),
    private readonly workflowOf: (appVersionId: string) => Workflow | null = () => null,
  ) {}

  /** Calls `listener` synchronously inside every update that changes a run's status. */
  onStatusChange(listener: (before: Run, after: Run) => void): void {
    this.changeListeners.add(listener);
  }

  async create(run: Run): Promise<void> {
    if (this.rows.has(run.id)) throw new Error(`run ${run.id} already exists`);
    this.rows.set(run.id, structuredClone(run));
  }

  async get(id: string): Promise<Run | null> {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }

  async update(id: string, patch: RunPatch, guard: RunUpdateGuard = {}, audit?: AuditEntry): Promise<Run | null> {
    const current = this.rows.get(id);
    if (!current) return null;
    if (guard.status && !guard.status.includes(current.status)) return null;
    if (guard.leaseOwner !== undefined && current.leaseOwner !== guard.leaseOwner) return null;
    if (guard.unplaced && current.backendId !== null) return null;
    if (guard.waitingForRoom && !this.waitingForRoom.has(id)) return null;
    const next: Run = { ...current, ...structuredClone(patch) };
    this.rows.set(id, next);
    if (next.status !== current.status) for (const l of this.changeListeners) l(current, next);
    if (audit) this.audit.append(audit);
    return structuredClone(next);
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  /** Every run as it is now (the in-memory asset repository reads the inputs of runs in flight). */
  snapshot(): readonly Run[] {
    return [...this.rows.values()].map((r) => structuredClone(r));
  }

  async listAll(options: { limit: number; after?: string | null; accountId?: string; status?: RunStatus }): Promise<RunPage> {
    const after = options.after ? decodeRunCursor(options.after) : null;
    const found = [...this.rows.values()]
      .filter((r) => (options.accountId === undefined || r.accountId === options.accountId) && (options.status === undefined || r.status === options.status))
      .filter((r) => !after || r.createdAt.getTime() < after.createdAtMs || (r.createdAt.getTime() === after.createdAtMs && r.id < after.id))
      .sort(newestFirst);
    const page = found.slice(0, options.limit);
    const last = page[page.length - 1];
    return { runs: page.map((r) => structuredClone(r)), nextCursor: found.length > options.limit && last ? encodeRunCursor(last) : null };
  }

  async listByAccount(accountId: string, options: { limit: number; after?: string | null }): Promise<RunPage> {
    const after = options.after ? decodeRunCursor(options.after) : null;
    const mine = [...this.rows.values()]
      .filter((r) => r.accountId === accountId)
      .filter((r) => !after || r.createdAt.getTime() < after.createdAtMs || (r.createdAt.getTime() === after.createdAtMs && r.id < after.id))
      .sort(newestFirst);
    const page = mine.slice(0, options.limit);
    const last = page[page.length - 1];
    const nextCursor = mine.length > options.limit && last ? encodeRunCursor(last) : null;
    return { runs: page.map((r) => structuredClone(r)), nextCursor };
  }

  async getWithQueuePosition(id: string): Promise<RunWithQueuePosition | null> {
    const run = await this.get(id);
    if (!run) return null;
    return { run, queuePosition: placeInQueue(run, isWaiting(run) ? await this.queuePosition(run) : undefined) };
  }

  async queuePosition(run: Run): Promise<number> {
    const index = this.fairOrder().findIndex((r) => r.id === run.id);
    return Math.max(0, index);
  }

  async claimNext(request: ClaimRequest): Promise<Run | null> {
    const now = request.now;
    const held = new Map<string, number>();
    const released = new Set(request.finishedOnBackend ?? []);
    for (const r of this.rows.values()) if (holdsSlot(r) && r.backendId && !released.has(r.id)) held.set(r.backendId, (held.get(r.backendId) ?? 0) + 1);
    const free: FreeBackend[] = request.backends
      .map((b) => ({ id: b.id, room: b.capacity - (held.get(b.id) ?? 0), ...(this.placed.get(b.id) ?? { lastAppVersionId: null, lastPlacedAtMs: null }) }))
      .filter((b) => b.room > 0);
    if (free.length === 0) return null;
    const candidates = request.failover
      ? [...this.rows.values()].filter((r) => isFailingOver(r) && leaseFree(r, now)).sort(oldestFirst)
      : this.fairOrder().filter((r) => leaseFree(r, now) && r.createdAt.getTime() >= request.queuedSince.getTime());
    for (const candidate of candidates) {
      const backendId = request.place({ ...structuredClone(candidate), workflow: this.workflowOf(candidate.appVersionId) ?? {} }, free);
      if (backendId === null || !free.some((b) => b.id === backendId)) continue;
      this.placed.set(backendId, { lastAppVersionId: candidate.appVersionId, lastPlacedAtMs: now.getTime() });
      if (request.backends.find((b) => b.id === backendId)?.waitsForRoom) this.waitingForRoom.add(candidate.id);
      else this.waitingForRoom.delete(candidate.id);
      return this.update(candidate.id, { leaseOwner: request.owner, leaseExpiresAt: request.leaseExpiresAt, backendId, attempts: candidate.attempts + 1 });
    }
    return null;
  }

  async claimMany(request: ClaimRequest, max: number): Promise<Run[]> {
    const claimed: Run[] = [];
    while (claimed.length < max) {
      const run = await this.claimNext(request);
      if (!run) break;
      claimed.push(run);
    }
    return claimed;
  }

  /** Waiting runs (queued, on no backend) in the order they will start. */
  private fairOrder(): Run[] {
    const heldByAccount = new Map<string, number>();
    const waiting: Run[] = [];
    for (const r of this.rows.values()) {
      if (holdsSlot(r)) heldByAccount.set(r.accountId, (heldByAccount.get(r.accountId) ?? 0) + 1);
      else if (r.status === 'queued' && r.backendId === null) waiting.push(r);
    }
    return fairShareOrder(waiting, heldByAccount);
  }

  async claimNextQueued(owner: string, leaseExpiresAt: Date, now: Date, backendId?: string): Promise<Run | null> {
    const next = [...this.rows.values()]
      .filter((r) => r.status === 'queued' && r.backendId === null && leaseFree(r, now))
      .sort(oldestFirst)[0];
    if (!next) return null;
    return this.update(next.id, { leaseOwner: owner, leaseExpiresAt, ...(backendId ? { backendId } : {}) });
  }

  async acquireLease(id: string, owner: string, leaseExpiresAt: Date, now: Date): Promise<Run | null> {
    const current = this.rows.get(id);
    if (!current || isTerminal(current.status)) return null;
    if (current.leaseOwner !== owner && !leaseFree(current, now)) return null;
    return this.update(id, { leaseOwner: owner, leaseExpiresAt });
  }

  async listOrphaned(now: Date, limit: number): Promise<Run[]> {
    return [...this.rows.values()]
      .filter((r) => !isTerminal(r.status) && r.backendId !== null && leaseFree(r, now))
      .sort(oldestFirst)
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }

  async renewLeases(owner: string, leaseExpiresAt: Date, ids: readonly string[]): Promise<number> {
    let n = 0;
    for (const id of new Set(ids)) {
      const r = this.rows.get(id);
      if (r && r.leaseOwner === owner && !isTerminal(r.status)) {
        this.rows.set(r.id, { ...r, leaseExpiresAt });
        n += 1;
      }
    }
    return n;
  }

  async releaseLeases(owner: string): Promise<number> {
    let n = 0;
    for (const r of this.rows.values()) {
      if (r.leaseOwner === owner) {
        this.rows.set(r.id, { ...r, leaseOwner: null, leaseExpiresAt: null });
        n += 1;
      }
    }
    return n;
  }

  async listQueuedBefore(createdBefore: Date, limit: number): Promise<Run[]> {
    return [...this.rows.values()]
      .filter((r) => r.status === 'queued' && r.createdAt.getTime() < createdBefore.getTime())
      .sort(oldestFirst)
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }

  async countActive(accountId: string): Promise<number> {
    let n = 0;
    for (const r of this.rows.values()) if (r.accountId === accountId && !isTerminal(r.status)) n += 1;
    return n;
  }

  async countCreated(accountId: string, from: Date, to: Date): Promise<number> {
    let n = 0;
    for (const r of this.rows.values()) if (r.accountId === accountId && r.createdAt >= from && r.createdAt < to) n += 1;
    return n;
  }

  async estimateInFlightGpuSeconds(accountId: string): Promise<number> {
    const means = new Map<string, number>();
    let total = 0;
    for (const r of this.rows.values()) {
      if (r.accountId !== accountId || isTerminal(r.status)) continue;
      if (!means.has(r.appVersionId)) means.set(r.appVersionId, this.meanGpuSeconds(r.appVersionId));
      total += means.get(r.appVersionId) ?? 0;
    }
    return total;
  }

  async estimateGpuSeconds(appVersionIds: readonly string[]): Promise<number[]> {
    return appVersionIds.map((id) => this.meanGpuSeconds(id));
  }

  async heldByBackend(): Promise<Map<string, number>> {
    const held = new Map<string, number>();
    for (const r of this.rows.values()) if (holdsSlot(r) && r.backendId && !this.waitingForRoom.has(r.id)) held.set(r.backendId, (held.get(r.backendId) ?? 0) + 1);
    return held;
  }

  async leaveWaiting(id: string, owner: string, leaseExpiresAt: Date): Promise<boolean> {
    const left = await this.update(id, { leaseExpiresAt }, { status: ['queued'], leaseOwner: owner, waitingForRoom: true });
    if (left) this.waitingForRoom.delete(id);
    return left !== null;
  }

  async backendUsage(): Promise<Map<string, BackendUsage>> {
    const usage = new Map<string, BackendUsage>();
    for (const r of this.rows.values()) {
      if (!r.backendId || !isTerminal(r.status)) continue;
      const u = usage.get(r.backendId) ?? { runsExecuted: 0, gpuSeconds: 0, lastAppVersionId: null };
      usage.set(r.backendId, { ...u, runsExecuted: u.runsExecuted + 1, gpuSeconds: u.gpuSeconds + (r.metrics.gpuSeconds ?? 0) });
    }
    for (const [id, placed] of this.placed) usage.set(id, { ...(usage.get(id) ?? { runsExecuted: 0, gpuSeconds: 0 }), lastAppVersionId: placed.lastAppVersionId });
    return usage;
  }

  async listFailingOver(limit: number): Promise<Run[]> {
    return [...this.rows.values()].filter(isFailingOver).sort(oldestFirst).slice(0, limit).map((r) => structuredClone(r));
  }

  private meanGpuSeconds(appVersionId: string): number {
    const finished = [...this.rows.values()]
      .filter((r) => r.appVersionId === appVersionId && r.finishedAt !== null && r.metrics.gpuSeconds !== null)
      .sort((a, b) => (b.finishedAt?.getTime() ?? 0) - (a.finishedAt?.getTime() ?? 0))
      .slice(0, ESTIMATE_WINDOW);
    if (finished.length === 0) return 0;
    return finished.reduce((sum, r) => sum + (r.metrics.gpuSeconds ?? 0), 0) / finished.length;
  }
}

/** Placed on a backend and not finished: it takes one of the backend's slots. */
function holdsSlot(run: Run): boolean {
  return run.backendId !== null && !isTerminal(run.status);
}

function leaseFree(run: Run, now: Date): boolean {
  return run.leaseOwner === null || run.leaseExpiresAt === null || run.leaseExpiresAt.getTime() <= now.getTime();
}
