/**
 * Configuration from environment variables (docs/operations.md#configuration). Every variable is optional; relative
 * paths resolve against the directory the command was started in.
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_AHEAD_LEAD_MS, DEFAULT_LIMITS, mergeLimits, normalizeBackendUrl, parseCredentials, type BackendCredentials, type LimitsConfig } from '@runload/core';
// The URL's reading only: the AWS SDK loads when a bucket is configured (see blob-store-module.ts).
import { isS3BlobUrl, s3OptionsFromEnv, type S3BlobStoreOptions } from '@runload/s3-blob-store/blob-url';

export interface RunloadConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** `postgres://…`, or null for the SQLite file in the data dir. */
  readonly databaseUrl: string | null;
  /** `redis://…`, or null for the in-process limiter. */
  readonly redisUrl: string | null;
  /** Put before every Redis key and channel, so deployments sharing one Redis never meet (`runload:`). */
  readonly redisPrefix: string;
  readonly comfyUiUrls: readonly string[];
  readonly maxUploadBytes: number;
  readonly limits: LimitsConfig;
  readonly trustedProxies: readonly string[];
  /** Browser origins allowed to call the API (`RUNLOAD_CORS_ORIGINS`); none when unset. */
  readonly corsOrigins: readonly string[];
  /** Runs one ComfyUI server may hold at once (1 = only idle servers get work). */
  readonly dispatchDepth: number;
  /**
   * A server full of this instance's runs gets its next run claimed `leadMs` before one of them is
   * expected to end, sent the moment it ends (no claim in between): `RUNLOAD_DISPATCH_AHEAD`
   * (default true) and `RUNLOAD_DISPATCH_AHEAD_LEAD_MS` (default 50). Null when turned off.
   */
  readonly dispatchAhead: { readonly leadMs: number } | null;
  /** How long a dispatcher's claim on a run lasts without renewal (another instance then takes over). */
  readonly leaseSeconds: number;
  /** This instance's name for leases; null picks one (stable for SQLite, random for PostgreSQL). */
  readonly instanceId: string | null;
  /** Integrations: `RUNLOAD_WEBHOOK_ALLOW_PRIVATE=true` lets webhooks target private, loopback and link-local addresses. */
  readonly webhookAllowPrivate: boolean;
  /** Integrations: the delays before each webhook retry; null keeps the documented schedule (tests shorten it). */
  readonly webhookRetryDelaysMs: readonly number[] | null;
  /** Seconds between two retention sweeps (one instance at a time does each). */
  readonly sweepSeconds: number;
  /** From `RUNLOAD_BLOB_URL=s3://…` and `RUNLOAD_S3_*`; null keeps blobs in the data directory. */
  readonly s3Blobs: S3BlobStoreOptions | null;
  // The pool as data.
  /** `RUNLOAD_COMFYUI_AUTH_HEADER` (`Name: value`): credentials for the configured and DNS backends. Never shown. */
  readonly comfyUiAuth: BackendCredentials | null;
  /** `RUNLOAD_COMFYUI_DNS=name:port[,…]`: names whose every address is a backend. */
  readonly comfyUiDns: readonly { readonly name: string; readonly port: number }[];
  /** `RUNLOAD_DNS_SERVERS=ip[:port][,…]`: the resolver's servers; empty keeps the system's. */
  readonly dnsServers: readonly string[];
  readonly dnsRefreshSeconds: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function onOff(env: Env, name: string, fallback = false): boolean {
  const raw = env[name]?.trim() ?? '';
  if (raw === '') return fallback;
  if (raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * A ComfyUI server's URL is its name in /healthz, /metrics, logs and error messages, so it must
 * parse, and carry no credentials (they would be shown there).
 */
/** pino's levels, which the logger takes from RUNLOAD_LOG_LEVEL as it is. */
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

function checkComfyUiUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`RUNLOAD_COMFYUI_URLS: "${url}" is not a valid URL`);
  }
  if (!/^https?:$/.test(parsed.protocol) || !/^https?:\/\/[^/]+/.test(url)) throw new ConfigError(`RUNLOAD_COMFYUI_URLS: "${url}" is not an http(s) URL`);
  if (parsed.username || parsed.password) {
    throw new ConfigError(
      'RUNLOAD_COMFYUI_URLS: a URL with credentials would show them in /healthz, /metrics and the logs; reach ComfyUI on a private network instead, or give them with RUNLOAD_COMFYUI_AUTH_HEADER (or backends add --auth-header / --basic-auth)',
    );
  }
  if (parsed.search || parsed.hash) throw new ConfigError(`RUNLOAD_COMFYUI_URLS: "${url}" must be the server's base URL, without a query or fragment`);
}

function readLimits(file: string | undefined, cwd: string): LimitsConfig {
  if (!file) return DEFAULT_LIMITS;
  const full = path.resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (error) {
    throw new ConfigError(`RUNLOAD_LIMITS_FILE: cannot read ${full}: ${(error as Error).message}`);
  }
  try {
    return mergeLimits(JSON.parse(text));
  } catch (error) {
    throw new ConfigError(`RUNLOAD_LIMITS_FILE ${full}: ${(error as Error).message}`);
  }
}

/** The longest instance name the database keeps (it names the owner of claims and leases). */
export const MAX_INSTANCE_ID_CHARS = 128;

function readInstanceId(env: Env): string | null {
  const id = env['RUNLOAD_INSTANCE_ID']?.trim() || null;
  if (id !== null && [...id].length > MAX_INSTANCE_ID_CHARS) {
    throw new ConfigError(`RUNLOAD_INSTANCE_ID must be at most ${MAX_INSTANCE_ID_CHARS} characters, got ${[...id].length}`);
  }
  return id;
}

function retryDelays(raw: string | undefined): number[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const delays = list(raw).map(Number);
  if (delays.some((d) => !Number.isInteger(d) || d < 0)) throw new ConfigError(`RUNLOAD_WEBHOOK_RETRY_DELAYS_MS must be comma-separated milliseconds, got "${raw}"`);
  return delays;
}

/**
 * Pub/sub channels are shared by all of a Redis server's databases, so a database number in the URL
 * does not keep two deployments apart; a prefix does. Braces are refused: they would change which
 * part of a key Redis Cluster hashes.
 */
function readRedisPrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'runload:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(raw)) {
    throw new ConfigError(`RUNLOAD_REDIS_PREFIX must be 1 to 64 letters, digits or ":_.-", got "${raw}"`);
  }
  return raw;
}

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): RunloadConfig {
  const databaseUrl = env['RUNLOAD_DATABASE_URL']?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('RUNLOAD_DATABASE_URL must be a postgres:// URL (leave it unset for SQLite in the data dir)');
  }
  const redisUrl = env['RUNLOAD_REDIS_URL']?.trim() || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('RUNLOAD_REDIS_URL must be a redis:// URL');
  const redisPrefix = readRedisPrefix(env['RUNLOAD_REDIS_PREFIX']);
  const comfyUiUrls = env['RUNLOAD_COMFYUI_URLS'] === undefined ? ['http://127.0.0.1:8188'] : list(env['RUNLOAD_COMFYUI_URLS']);
  // Set but empty: an instance with no backend (uploads, reads, maintenance); runs answer 503.
  for (const url of comfyUiUrls) checkComfyUiUrl(url);
  const logLevel = env['RUNLOAD_LOG_LEVEL'];
  if (logLevel && !LOG_LEVELS.includes(logLevel)) throw new ConfigError(`RUNLOAD_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  return {
    host: env['RUNLOAD_HOST']?.trim() || '127.0.0.1',
    port: integer(env, 'RUNLOAD_PORT', 8080, 0, 65535),
    dataDir: path.resolve(cwd, env['RUNLOAD_DATA_DIR']?.trim() || './data'),
    databaseUrl,
    redisUrl,
    redisPrefix,
    comfyUiUrls: comfyUiUrls.map((u) => normalizeBackendUrl(u)),
    maxUploadBytes: integer(env, 'RUNLOAD_MAX_UPLOAD_BYTES', 104_857_600, 1, Number.MAX_SAFE_INTEGER),
    limits: readLimits(env['RUNLOAD_LIMITS_FILE'], cwd),
    trustedProxies: list(env['RUNLOAD_TRUSTED_PROXIES']),
    corsOrigins: list(env['RUNLOAD_CORS_ORIGINS']),
    dispatchDepth: integer(env, 'RUNLOAD_DISPATCH_DEPTH', 1, 1, 1000),
    dispatchAhead: onOff(env, 'RUNLOAD_DISPATCH_AHEAD', true) ? { leadMs: integer(env, 'RUNLOAD_DISPATCH_AHEAD_LEAD_MS', DEFAULT_AHEAD_LEAD_MS, 1, 60_000) } : null,
    leaseSeconds: integer(env, 'RUNLOAD_LEASE_SECONDS', 15, 2, 3600),
    instanceId: readInstanceId(env),
    webhookAllowPrivate: env['RUNLOAD_WEBHOOK_ALLOW_PRIVATE']?.trim() === 'true',
    webhookRetryDelaysMs: retryDelays(env['RUNLOAD_WEBHOOK_RETRY_DELAYS_MS']),
    sweepSeconds: integer(env, 'RUNLOAD_SWEEP_SECONDS', 600, 1, 86_400),
    s3Blobs: readBlobUrl(env),
    comfyUiAuth: readAuthHeader(env['RUNLOAD_COMFYUI_AUTH_HEADER']),
    comfyUiDns: readDnsNames(env['RUNLOAD_COMFYUI_DNS']),
    dnsServers: list(env['RUNLOAD_DNS_SERVERS']),
    dnsRefreshSeconds: integer(env, 'RUNLOAD_DNS_REFRESH_SECONDS', 10, 1, 3600),
  };
}

function readAuthHeader(raw: string | undefined): BackendCredentials | null {
  if (raw === undefined || raw.trim() === '') return null;
  try {
    return parseCredentials({ header: raw });
  } catch (error) {
    // The message never repeats the value: it is a secret.
    throw new ConfigError(`RUNLOAD_COMFYUI_AUTH_HEADER: ${(error as Error).message}`);
  }
}

function readDnsNames(raw: string | undefined): { name: string; port: number }[] {
  return list(raw).map((item) => {
    const match = /^([A-Za-z0-9.-]+):(\d{1,5})$/.exec(item);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) throw new ConfigError(`RUNLOAD_COMFYUI_DNS: each entry is name:port, got "${item}"`);
    return { name: match[1] as string, port };
  });
}

function readBlobUrl(env: Env): S3BlobStoreOptions | null {
  const url = env['RUNLOAD_BLOB_URL']?.trim();
  if (!url) return null;
  if (!isS3BlobUrl(url)) throw new ConfigError(`RUNLOAD_BLOB_URL must be s3://BUCKET/PREFIX (leave it unset for the data directory), got "${url}"`);
  try {
    return s3OptionsFromEnv(url, env);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}
