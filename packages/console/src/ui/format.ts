/** How times and amounts read in the console. */
export function formatTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

export function formatSeconds(seconds: number | null): string {
  return seconds === null ? '—' : `${Math.round(seconds * 10) / 10} s`;
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}
