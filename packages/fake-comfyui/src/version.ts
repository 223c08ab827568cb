/** Which ComfyUI the fake imitates (protocol §14). */
export type FakeVersion = 'legacy' | '0.3.64' | '2026';
