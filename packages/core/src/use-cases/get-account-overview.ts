import type { Account } from '../domain/account.js';
import { tierLimitsOf, type LimitsConfig, type TierLimits } from '../domain/limits.js';
import type { Principal } from './principal.js';
import type { GpuQuotaState, RunAdmission } from './run-admission.js';

export interface AccountOverview {
  readonly account: Account;
  readonly limits: TierLimits & { readonly general_per_minute: number };
  readonly quota: GpuQuotaState;
}

/** `GET /account`: the caller's tier, limits and GPU-seconds used and left. */
export class GetAccountOverview {
  constructor(
    private readonly admission: RunAdmission,
    private readonly limits: LimitsConfig,
  ) {}

  async execute(principal: Principal): Promise<AccountOverview> {
    const { account } = principal;
    const quota = await this.admission.quota(account);
    return { account, limits: { general_per_minute: this.limits.general_per_minute, ...tierLimitsOf(this.limits, account.tier) }, quota };
  }
}
