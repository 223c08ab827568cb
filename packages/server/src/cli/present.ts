/** JSON shapes the CLI prints (CONTRACT 2), in the API's snake_case. */
import type { Account, AppVersion } from '@runload/core';

export function presentAccount(a: Account) {
  return { account_id: a.id, name: a.name, tier: a.tier, status: a.status, created_at: a.createdAt.toISOString() };
}

export function presentAppVersion(v: AppVersion) {
  return {
    app_id: v.appId,
    app_version_id: v.id,
    name: v.name,
    created_at: v.createdAt.toISOString(),
    deleted: v.deletedAt !== null,
    inputs: v.inputs.map((i) => ({
      key: i.key,
      node_id: i.nodeId,
      widget: i.widget,
      type: i.type,
      default: i.default,
      ...(i.min !== undefined ? { min: i.min } : {}),
      ...(i.max !== undefined ? { max: i.max } : {}),
      ...(i.step !== undefined ? { step: i.step } : {}),
      ...(i.options !== undefined ? { options: i.options } : {}),
    })),
  };
}
