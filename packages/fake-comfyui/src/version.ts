/** Which ComfyUI the fake imitates: one older than mid-2024, v0.3.64 as recorded, or a 2026 release. */
export type FakeVersion = 'legacy' | '0.3.64' | '2026';
