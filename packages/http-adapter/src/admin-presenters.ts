/** The admin API's objects as snake_case JSON. Never a secret, except a new key's, once. */
import type { Account, AccountDetail, AccountUsage, ApiKey, AppVersion, AuditEntry, IssuedApiKey, Run } from '@runload/core';
import { presentAppSummary, presentAppVersion, presentRun, toMilliseconds } from './presenters.js';

export function presentAdminAccount(a: Account) {
  return { account_id: a.id, name: a.name, tier: a.tier, status: a.status, created_at: a.createdAt.toISOString() };
}

export function presentAccountDetail(d: AccountDetail) {
  return {
    ...presentAdminAccount(d.account),
    gpu_seconds_used: toMilliseconds(d.quota.used),
    gpu_seconds_quota: d.quota.limit,
    quota_resets_at: new Date(d.quota.resetAt * 1000).toISOString(),
    runs_queued: d.runsQueued,
    runs_running: d.runsRunning,
  };
}

export function presentIssuedKey(issued: IssuedApiKey) {
  const k = issued.key;
  return { key_id: k.id, api_key: issued.apiKey, account_id: k.accountId, prefix: k.prefix, name: k.name, created_at: k.createdAt.toISOString() };
}

export function presentAdminKey(k: ApiKey) {
  return {
    key_id: k.id,
    prefix: k.prefix,
    name: k.name,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
  };
}

export function presentAdminAppVersion(v: AppVersion) {
  return { ...presentAppVersion(v), deleted: v.deletedAt !== null };
}

export function presentAdminAppSummary(v: AppVersion) {
  return { ...presentAppSummary(v), deleted: v.deletedAt !== null };
}

export function presentAdminRun(run: Run, queuePosition: number | null) {
  return { ...presentRun(run, queuePosition), account_id: run.accountId };
}

export function presentUsage(u: AccountUsage) {
  return { account_id: u.account.id, name: u.account.name, tier: u.account.tier, gpu_seconds: toMilliseconds(u.gpuSeconds), runs: { ...u.runs } };
}

export function presentAuditEntry(e: AuditEntry) {
  return { at: e.at.toISOString(), actor: e.actor, action: e.action, target: e.target, request_id: e.requestId };
}
