/** JSON shapes the CLI prints (CONTRACT 2), in the API's snake_case. */
import type { Account, AppVersion } from '@runload/core';
import { presentAppVersion as presentVersionForApi } from '@runload/http-adapter';

export function presentAccount(a: Account) {
  return { account_id: a.id, name: a.name, tier: a.tier, status: a.status, created_at: a.createdAt.toISOString() };
}

export function presentAppVersion(v: AppVersion) {
  return { ...presentVersionForApi(v), deleted: v.deletedAt !== null, ...(v.requireLabels ? { require_labels: { ...v.requireLabels } } : {}) };
}
