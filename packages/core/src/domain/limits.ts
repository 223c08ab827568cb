/**
 * Limit configuration (the general limit, each tier's run limits and GPU quota) and the fixed windows derived from it.
 * @module
 */
import { CoreError } from './errors.js';
import type { WindowPeriod } from './limit-window.js';
import { TIER_NAME, TIERS, type Tier } from './tier.js';

export interface TierLimits {
  readonly runs_per_minute: number;
  readonly runs_per_hour: number;
  readonly gpu_seconds_per_month: number;
  /** Whether accounts of this tier may submit raw workflow graphs (default true). */
  readonly workflows: boolean;
}

export interface LimitsConfig {
  readonly general_per_minute: number;
  readonly auth_failures_per_minute: number;
  readonly max_queue_seconds: number;
  readonly max_run_seconds: number;
  /** Every tier by name: the four defaults and those the limits file adds. */
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
    starter: { runs_per_minute: 10, runs_per_hour: 100, gpu_seconds_per_month: 3600, workflows: true },
    plus: { runs_per_minute: 20, runs_per_hour: 200, gpu_seconds_per_month: 18000, workflows: true },
    max: { runs_per_minute: 30, runs_per_hour: 300, gpu_seconds_per_month: 36000, workflows: true },
    ultra: { runs_per_minute: 90, runs_per_hour: 900, gpu_seconds_per_month: 108000, workflows: true },
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
const TIER_NUMBERS = ['runs_per_minute', 'runs_per_hour', 'gpu_seconds_per_month'] as const;
const TIER_FIELDS = [...TIER_NUMBERS, 'workflows'];
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
  const tiers = mergeTiers(p['tiers'] ?? {}, base.tiers);
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

/**
 * The default tiers take the fields a file sets; a tier the file adds needs a lower-case name and
 * all three numbers. `workflows` is optional everywhere (default true).
 */
function mergeTiers(raw: unknown, base: Readonly<Record<Tier, TierLimits>>): Record<Tier, TierLimits> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new TypeError('limits: tiers must be an object');
  const tiersIn = raw as Record<string, unknown>;
  const tiers: Record<Tier, TierLimits> = { ...base };
  for (const tier of new Set([...TIERS, ...Object.keys(tiersIn)])) {
    const t = (tiersIn[tier] ?? {}) as Record<string, unknown>;
    if (typeof t !== 'object' || t === null || Array.isArray(t)) throw new TypeError(`limits: tiers.${tier} must be an object`);
    const baseTier = Object.hasOwn(base, tier) ? base[tier] : undefined;
    if (!baseTier) {
      if (!TIER_NAME.test(tier)) throw new TypeError(`limits: tier name ${JSON.stringify(tier)} must be lower case: a letter, then letters, digits, - or _ (32 at most)`);
      const missing = TIER_NUMBERS.filter((f) => t[f] === undefined);
      if (missing.length > 0) throw new TypeError(`limits: tiers.${tier} is a new tier and needs ${missing.join(', ')}`);
    }
    refuseUnknown(t, TIER_FIELDS, `in tiers.${tier}: `);
    const field = (name: (typeof TIER_NUMBERS)[number]): number => {
      const v = t[name];
      if (v === undefined) return (baseTier as TierLimits)[name];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new TypeError(`limits: tiers.${tier}.${name} must be a non-negative number`);
      return v;
    };
    const workflows = t['workflows'] ?? baseTier?.workflows ?? true;
    if (typeof workflows !== 'boolean') throw new TypeError(`limits: tiers.${tier}.workflows must be true or false`);
    tiers[tier] = { runs_per_minute: field('runs_per_minute'), runs_per_hour: field('runs_per_hour'), gpu_seconds_per_month: field('gpu_seconds_per_month'), workflows };
  }
  return tiers;
}

/**
 * The limits of an account's tier. An account left on a tier the limits file no longer defines
 * gets the starter tier's limits rather than none.
 */
export function tierLimitsOf(limits: LimitsConfig, tier: Tier): TierLimits {
  return limits.tiers[tier] ?? (limits.tiers['starter'] as TierLimits);
}

/** The tier name itself when it is defined. @throws CoreError INVALID_REQUEST listing the defined tiers */
export function requireTier(limits: LimitsConfig, tier: unknown): Tier {
  if (typeof tier === 'string' && Object.hasOwn(limits.tiers, tier)) return tier;
  throw new CoreError('INVALID_VALUE', `Unknown tier ${JSON.stringify(tier)}: use one of ${Object.keys(limits.tiers).join(', ')}`);
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
  /** An admin token's own general window. */
  adminGeneral: 'admin-general',
} as const;
