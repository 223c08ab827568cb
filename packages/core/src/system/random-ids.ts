import { randomInt, randomUUID } from 'node:crypto';
import type { IdGenerator } from '../ports/id-generator.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Cryptographically random ids and key material. */
export class RandomIds implements IdGenerator {
  uuid(): string {
    return randomUUID();
  }

  base62(length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 1) out += ALPHABET[randomInt(62)];
    return out;
  }
}
