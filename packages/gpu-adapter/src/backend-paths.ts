/**
 * ComfyUI's exception texts name files by their absolute paths on the backend host
 * (`/home/gpu/ComfyUI/input/runload/<asset>.mp4`). API clients get the file's name only: the
 * message stays useful and the host's layout stays private.
 * @module
 */

/** A POSIX or Windows absolute path's directories, not preceded by a word, a scheme or a dot. */
const DIRECTORIES = /(?<![\w:/.\\-])(?:[A-Za-z]:[\\/]|\/)(?:[^\s'"`<>|\\/:]+[\\/])+/g;

/** The text with every absolute path cut to its last segment. */
export function stripBackendPaths(text: string): string {
  return text.replace(DIRECTORIES, '');
}

/** The same for every string inside a JSON value (node errors, details). */
export function stripBackendPathsDeep(value: unknown): unknown {
  if (typeof value === 'string') return stripBackendPaths(value);
  if (Array.isArray(value)) return value.map(stripBackendPathsDeep);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripBackendPathsDeep(v)]));
  return value;
}
