/**
 * Python's int(), float(), str() and bool() on JSON values, with the error texts ComfyUI puts in
 * `invalid_input_type`, and Python's way of printing numbers in validation messages.
 * @module
 */

export class PythonValueError extends Error {}

const typeName = (v: unknown) => (v === null ? 'NoneType' : Array.isArray(v) ? 'list' : typeof v === 'object' ? 'dict' : typeof v);

/** str(value) for a JSON value, as Python prints it. */
export function pyStr(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** How Python prints a float: always with a decimal part. */
export function pyFloatStr(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e16 ? n.toFixed(1) : String(n);
}

const INT_LITERAL = /^\s*[-+]?\d+(_\d+)*\s*$/;
const FLOAT_LITERAL = /^\s*[-+]?((\d+(_\d+)*)?\.?\d*([eE][-+]?\d+)?|inf(inity)?|nan)\s*$/i;

export function pyInt(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string') {
    if (!INT_LITERAL.test(value)) throw new PythonValueError(`invalid literal for int() with base 10: '${value}'`);
    return Number(value.replace(/_/g, ''));
  }
  throw new PythonValueError(`int() argument must be a string, a bytes-like object or a real number, not '${typeName(value)}'`);
}

export function pyFloat(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    if (!FLOAT_LITERAL.test(value) || !/\d|inf|nan/i.test(value)) throw new PythonValueError(`could not convert string to float: '${value}'`);
    const text = value.trim().toLowerCase().replace(/_/g, '');
    return text.includes('nan') ? NaN : text.includes('inf') ? (text.startsWith('-') ? -Infinity : Infinity) : Number(text);
  }
  throw new PythonValueError(`float() argument must be a string or a real number, not '${typeName(value)}'`);
}

/** Python truthiness: `bool("false")` is True. */
export function pyBool(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

/** Coerces a literal to the widget type as ComfyUI's validation does; other types pass unchanged. */
export function coerce(type: unknown, value: unknown): unknown {
  if (type === 'INT') return pyInt(value);
  if (type === 'FLOAT') return pyFloat(value);
  if (type === 'STRING') return pyStr(value);
  if (type === 'BOOLEAN') return pyBool(value);
  return value;
}

/** repr() of a list of combo options, as in `value_not_in_list` details. */
export function pyListRepr(options: readonly unknown[]): string {
  return `[${options.map((o) => (typeof o === 'string' ? `'${o}'` : pyStr(o))).join(', ')}]`;
}
