/** What a command answers (the JSON object `--json` prints and a line for people), and the flags it reads. */
export interface CommandResult {
  readonly json: Record<string, unknown>;
  readonly text: string;
}

export type Flags = Record<string, string | boolean | string[] | undefined>;
