import type { Tier } from './tier.js';

export type AccountStatus = 'active' | 'suspended';

export interface Account {
  readonly id: string;
  readonly name: string;
  readonly tier: Tier;
  readonly status: AccountStatus;
  readonly createdAt: Date;
}
