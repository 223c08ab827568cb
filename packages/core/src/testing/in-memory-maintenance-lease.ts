import type { MaintenanceLease } from '../ports/maintenance-lease.js';

export class InMemoryMaintenanceLease implements MaintenanceLease {
  private readonly leases = new Map<string, { owner: string; until: number }>();

  async acquire(name: string, owner: string, until: Date, now: Date): Promise<boolean> {
    const held = this.leases.get(name);
    if (held && held.owner !== owner && held.until > now.getTime()) return false;
    this.leases.set(name, { owner, until: until.getTime() });
    return true;
  }
}
