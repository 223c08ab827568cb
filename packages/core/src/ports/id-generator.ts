/** Source of identifiers and key material. */
export interface IdGenerator {
  /** A new random UUID (v4), lower case. */
  uuid(): string;
  /** `length` characters of [0-9A-Za-z], each uniformly random from a cryptographic source. */
  base62(length: number): string;
}

export const ID_GENERATOR = Symbol.for('runload.core.IdGenerator');
