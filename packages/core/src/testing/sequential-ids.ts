import type { IdGenerator } from '../ports/id-generator.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Deterministic ids for tests: valid v4-shaped UUIDs and base62 strings from a counter. */
export class SequentialIds implements IdGenerator {
  private next = 0;

  uuid(): string {
    this.next += 1;
    const hex = this.next.toString(16).padStart(12, '0');
    return `00000000-0000-4000-8000-${hex}`;
  }

  base62(length: number): string {
    this.next += 1;
    let n = this.next;
    let out = '';
    while (n > 0) {
      out = ALPHABET[n % 62] + out;
      n = Math.floor(n / 62);
    }
    return out.padStart(length, '0').slice(-length);
  }
}
