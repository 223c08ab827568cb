/**
 * Routes in the URL's fragment (`#/runs/…`): the server answers one page for `/console`, and a
 * reload or a shared link lands on the same view.
 * @module
 */
import { useEffect, useState } from 'preact/hooks';

export function currentPath(): string {
  const path = location.hash.replace(/^#/, '');
  return path.startsWith('/') ? path : '/';
}

export function navigate(path: string): void {
  location.hash = path;
}

export function useRoute(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const onChange = () => setPath(currentPath());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return path;
}

/** The segments of a path after a fixed prefix, e.g. `match('/runs/42', '/runs/')` is `['42']`. */
export function match(path: string, prefix: string): string[] | null {
  if (!path.startsWith(prefix)) return null;
  const rest = path.slice(prefix.length);
  return rest === '' ? null : rest.split('/').map(decodeURIComponent);
}
