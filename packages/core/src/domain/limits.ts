/**
 * Limit configuration (SPEC 8.2, 8.3; CONTRACT 6) and the fixed windows derived from it.
 * @module
 */
import { TIERS, type Tier } from './tier.js';

export interface TierLimits {
  readonly runs_per_minute: number;
  readonly runs_per_hour: number;
  readonly gpu_seconds_per_month: number;
}

export interface LimitsConfig {
  readonly general_per_minute: number;
  readonly auth_failures_per_minute: number;
  readonly max_queue_seconds: number;
  readonly max_run_seconds: number;
  readonly tiers: Readonly<Record<Tier, TierLimits>>;
  readonly retention: RetentionConfig;
  /** Dispatches a run may have in all when its backends are lost after it started (failover); 1 turns failover off. */
  readonly max_attempts: number;
}

/** How long assets live, in days (fractions allowed); null keeps them until deleted. */
export interface RetentionConfig {
  readonly uploads_days: number | null;
  readonly outputs_days: number | null;
}

export const DEFAULT_LIMITS: LimitsConfig = {
  general_per_minute: 120,
  auth_failures_per_minute: 30,
  max_queue_seconds: 3600,
  max_run_seconds: 1800,
  tiers: {
    starter: { runs_per_minute: 10, runs_per_hour: 100, gpu_seconds_per_month: 3600 },
    plus: { runs_per_minute: 20, runs_per_hour: 200, gpu_seconds_per_month: 18000 },
    max: { runs_per_minute: 30, runs_per_hour: 300, gpu_seconds_per_month: 36000 },
    ultra: { runs_per_minute: 90, runs_per_hour: 900, gpu_seconds_per_month: 108000 },
  },
  retention: { uploads_days: 7, outputs_days: 30 },
  max_attempts: 3,
};

/** The longest queue or run time a limits file may set: a year (time arithmetic stays exact). */
export const MAX_LIMIT_SECONDS = 365 * 24 * 3600;
/** The longest retention a limits file may set, in days (use null to keep assets forever). */
export const MAX_RETENTION_DAYS = 36_500;

const LIMIT_FIELDS = ['general_per_minute', 'auth_failures_per_minute', 'max_queue_seconds', 'max_run_seconds', 'tiers', 'retention', 'max_attempts'];
/** More attempts than this would only hide a broken pool. */
const MAX_ATTEMPTS = 100;
const TIER_FIELDS = ['runs_per_minute', 'runs_per_hour', 'gpu_seconds_per_month'];
const RETENTION_FIELDS = ['uploads_days', 'outputs_days'];

/** A misspelt field would be ignored and its default kept without a word: refused instead. */
function refuseUnknown(object: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(object).find((k) => !known.includes(k));
  if (unknown !== undefined) throw new TypeError(`limits: unknown field ${where}${JSON.stringify(unknown)} (known: ${known.join(', ')})`);
}

/** Overlays a partial limits object (a limits file) on the defaults; every field left out keeps its default. */
export function mergeLimits(partial: unknown, base: LimitsConfig = DEFAULT_LIMITS): LimitsConfig {
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) {
    throw new TypeError('The limits file must hold a JSON object');
  }
  const p = partial as Record<string, unknown>;
  refuseUnknown(p, LIMIT_FIELDS, '');
  const num = (name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number => {
    const v = p[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new TypeError(`limits: ${name} must be a non-negative number`);
    if (v > max) throw new TypeError(`limits: ${name} must be at most ${max}`);
    return v;
  };
  const tiersIn = (p['tiers'] ?? {}) as Record<string, unknown>;
  if (typeof tiersIn !== 'object' || tiersIn === null || Array.isArray(tiersIn)) throw new TypeError('limits: tiers must be an object');
  refuseUnknown(tiersIn, TIERS, 'in tiers: ');
  const tiers = {} as Record<Tier, TierLimits>;
  for (const tier of TIERS) {
    const t = (tiersIn[tier] ?? {}) as Record<string, unknown>;
    if (typeof t !== 'object' || t === null || Array.isArray(t)) throw new TypeError(`limits: tiers.${tier} must be an object`);
    refuseUnknown(t, TIER_FIELDS, `in tiers.${tier}: `);
    const baseTier = base.tiers[tier];
    const field = (name: keyof TierLimits): number => {
      const v = t[name];
      if (v === undefined) return baseTier[name];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new TypeError(`limits: tiers.${tier}.${name} must be a non-negative number`);
      return v;
    };
    tiers[tier] = { runs_per_minute: field('runs_per_minute'), runs_per_hour: field('runs_per_hour'), gpu_seconds_per_month: field('gpu_seconds_per_month') };
  }
  return {
    general_per_minute: num('general_per_minute', base.general_per_minute),
    auth_failures_per_minute: num('auth_failures_per_minute', base.auth_failures_per_minute),
    max_queue_seconds: num('max_queue_seconds', base.max_queue_seconds, MAX_LIMIT_SECONDS),
    max_run_seconds: num('max_run_seconds', base.max_run_seconds, MAX_LIMIT_SECONDS),
    tiers,
    retention: mergeRetention(p['retention'], base.retention),
    max_attempts: attempts(p['max_attempts'], base.max_attempts),
  };
}

function attempts(raw: unknown, fallback: number): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_ATTEMPTS) throw new TypeError(`limits: max_attempts must be a whole number from 1 to ${MAX_ATTEMPTS}`);
  return raw;
}

function mergeRetention(raw: unknown, base: RetentionConfig): RetentionConfig {
  if (raw === undefined) return base;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new TypeError('limits: retention must be an object');
  const r = raw as Record<string, unknown>;
  refuseUnknown(r, RETENTION_FIELDS, 'in retention: ');
  const days = (name: keyof RetentionConfig): number | null => {
    const v = r[name];
    if (v === undefined) return base[name];
    if (v === null) return null;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > MAX_RETENTION_DAYS) {
      throw new TypeError(`limits: retention.${name} must be a positive number of days up to ${MAX_RETENTION_DAYS}, or null`);
    }
    return v;
  };
  return { uploads_days: days('uploads_days'), outputs_days: days('outputs_days') };
}

/** When an asset of this origin, created or last used at `from`, expires; null when kept forever. */
export function expiryOf(origin: 'upload' | 'output', from: Date, retention: RetentionConfig): Date | null {
  const days = origin === 'upload' ? retention.uploads_days : retention.outputs_days;
  return days === null ? null : new Date(from.getTime() + Math.round(days * 86_400_000));
}

export type WindowPeriod = 'minute' | 'hour';

export const PERIOD_MS: Record<WindowPeriod, number> = { minute: 60_000, hour: 3_600_000 };

/** Start of the fixed window that contains `nowMs`, aligned to the clock's minute or hour. */
export function windowStart(period: WindowPeriod, nowMs: number): number {
  const size = PERIOD_MS[period];
  return Math.floor(nowMs / size) * size;
}

/** Start of the calendar month (UTC) containing `at`, and the start of the next one. */
export function monthBounds(at: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end };
}

/** DI token for the process's `LimitsConfig`. */
export const LIMITS_CONFIG = Symbol.for('runload.core.LimitsConfig');

/** Names of the windows the core counts. */
export const WINDOW = {
  general: 'general',
  runMinute: 'run-minute',
  runHour: 'run-hour',
  authFailures: 'auth-failures',
} as const;
