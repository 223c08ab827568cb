/**
 * Checks a caller's `inputs` map against an app version's typed inputs.
 * Media inputs are only checked for shape here; ownership and kind need the asset store.
 * @module
 */
import { isMediaInputType, type InputSpec } from './app-version.js';
import type { ErrorDetail } from './errors.js';
import type { RunInputs } from './run.js';

/** The longest STRING input, in characters (UTF-16 code units, as JSON strings count them). */
export const MAX_STRING_CHARS = 65_536;

/** At most this many problems are listed in `details`; the message says how many there were. */
export const MAX_PROBLEMS_LISTED = 100;

/** Longer keys are cut in `details`, so a hostile body cannot make the error as big as itself. */
const MAX_KEY_CHARS_LISTED = 200;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function checkNumber(spec: InputSpec, value: unknown): string | null {
  if (typeof value !== 'number') return `expected a number, got ${describe(value)}`;
  if (!Number.isFinite(value)) return 'expected a finite number (this one is too large to represent)';
  if (spec.type === 'INT' && !Number.isSafeInteger(value)) return 'expected a whole number within ±2^53';
  if (spec.min !== undefined && value < spec.min) return `must be at least ${spec.min}`;
  if (spec.max !== undefined && value > spec.max) return `must be at most ${spec.max}`;
  return null;
}

/**
 * Characters as Unicode counts them (code points, as ComfyUI's Python does): a character outside
 * the Basic Multilingual Plane, an emoji say, is two UTF-16 units of a JavaScript string.
 */
function characters(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    count += 1;
  }
  return count;
}

function checkString(value: unknown): string | null {
  if (typeof value !== 'string') return `expected a string, got ${describe(value)}`;
  if (value.length <= MAX_STRING_CHARS) return null; // never more characters than UTF-16 units
  const count = characters(value);
  return count > MAX_STRING_CHARS ? `at most ${MAX_STRING_CHARS} characters, got ${count}` : null;
}

/** The reason a value does not fit its input, or null when it fits. */
export function checkValue(spec: InputSpec, value: unknown): string | null {
  switch (spec.type) {
    case 'STRING':
      return checkString(value);
    case 'INT':
    case 'FLOAT':
      return checkNumber(spec, value);
    case 'BOOLEAN':
      return typeof value === 'boolean' ? null : `expected a boolean, got ${describe(value)}`;
    case 'COMBO':
      if (typeof value !== 'string' && typeof value !== 'number') return `expected one of the options, got ${describe(value)}`;
      if (spec.options && spec.options.length > 0 && !spec.options.includes(value)) {
        return `must be one of: ${spec.options.slice(0, 20).join(', ')}${spec.options.length > 20 ? ', …' : ''}`;
      }
      return null;
    default:
      if (isMediaInputType(spec.type)) {
        return isUuid(value) ? null : `expected the asset_id (UUID) of an uploaded ${spec.type.toLowerCase()} file`;
      }
      return `unsupported input type ${spec.type}`;
  }
}

export interface InputCheck {
  readonly values: RunInputs;
  readonly problems: ErrorDetail[];
}

/** Validates every key of `inputs`; unknown keys and bad values are all reported. */
export function checkInputs(specs: readonly InputSpec[], inputs: Record<string, unknown>): InputCheck {
  const byKey = new Map(specs.map((s) => [s.key, s]));
  const values: Record<string, string | number | boolean> = {};
  const problems: ErrorDetail[] = [];
  for (const [key, value] of Object.entries(inputs)) {
    const spec = byKey.get(key);
    if (!spec) {
      problems.push({ key: listedKey(key), reason: key.includes(':') ? 'unknown input for this app version' : 'keys have the form <nodeId>:<widgetName>' });
      continue;
    }
    const reason = checkValue(spec, value);
    if (reason) problems.push({ key, reason });
    // Asset ids are stored in lower case; one sent in upper case names the same asset.
    else values[key] = isMediaInputType(spec.type) ? (value as string).toLowerCase() : (value as string | number | boolean);
  }
  return { values, problems };
}

function listedKey(key: string): string {
  return key.length > MAX_KEY_CHARS_LISTED ? `${key.slice(0, MAX_KEY_CHARS_LISTED)}…` : key;
}

/** The INVALID_INPUT message and the problems it lists: at most {@link MAX_PROBLEMS_LISTED}. */
export function describeProblems(problems: readonly ErrorDetail[], appVersionId: string): { message: string; details: ErrorDetail[] } {
  const listed = problems.slice(0, MAX_PROBLEMS_LISTED);
  const more = problems.length - listed.length;
  const suffix = more > 0 ? `; details lists the first ${listed.length}, ${more} more not shown` : '';
  return { message: `${problems.length} input(s) do not fit app version ${appVersionId}${suffix}`, details: listed };
}
