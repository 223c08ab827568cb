/** Builders shared by the contract suites. */
import type { Account } from '../domain/account.js';
import type { AppVersion } from '../domain/app-version.js';
import { newQueuedRun, type Run } from '../domain/run.js';

let counter = 0;

/** A fresh UUID-shaped id that sorts after every earlier one. */
export function nextId(): string {
  counter += 1;
  return `00000000-0000-4000-8000-${(Date.now() % 1e6).toString(16).padStart(5, '0')}${counter.toString(16).padStart(7, '0')}`;
}

export function anAccount(overrides: Partial<Account> = {}): Account {
  return { id: nextId(), name: 'Ada', tier: 'starter', status: 'active', createdAt: new Date(Date.UTC(2026, 0, 1)), ...overrides };
}

export function anAppVersion(overrides: Partial<AppVersion> = {}): AppVersion {
  return {
    id: nextId(),
    appId: nextId(),
    name: 'app',
    workflow: { '1': { class_type: 'SaveImage', inputs: { filename_prefix: 'x' } } },
    inputs: [{ key: '1:filename_prefix', nodeId: '1', widget: 'filename_prefix', nodeType: 'SaveImage', type: 'STRING', default: 'x' }],
    createdAt: new Date(Date.UTC(2026, 0, 1)),
    deletedAt: null,
    ...overrides,
  };
}

export function aRun(accountId: string, appVersionId: string, overrides: Partial<Run> = {}): Run {
  const base = newQueuedRun({
    id: nextId(),
    accountId,
    appVersionId,
    createdAt: new Date(Date.UTC(2026, 0, 1)),
    inputs: { '1:filename_prefix': 'y' },
    workflow: { '1': { class_type: 'SaveImage', inputs: { filename_prefix: 'x' } } },
  });
  return { ...base, ...overrides };
}
