/**
 * The binary frames of one ComfyUI connection, turned into previews of prompts: a frame that
 * names its prompt (type 4) goes to it, one that does not (type 1) to the prompt executing now.
 * A malformed frame is dropped; the first of each connection is reported, so a server that sends
 * nothing but bad frames cannot flood the log.
 * @module
 */
import type { Preview } from '@runload/core';
import type { ExecutingPrompt } from './executing-prompt.js';
import { parsePreviewFrame } from './preview-frame.js';

export class PreviewFrames {
  private malformedReported = false;

  constructor(
    private readonly executing: ExecutingPrompt,
    private readonly onPreview: (promptId: string, preview: Preview) => void,
    private readonly onMalformed: (reason: string) => void,
  ) {}

  onFrame(frame: Buffer): void {
    const parsed = parsePreviewFrame(frame);
    if (parsed.kind === 'other') return;
    if (parsed.kind === 'malformed') {
      if (!this.malformedReported) this.onMalformed(parsed.reason);
      this.malformedReported = true;
      return;
    }
    const promptId = parsed.promptId ?? this.executing.promptId;
    if (promptId === null) return; // a preview of nothing running (another client's, sent before it started)
    this.onPreview(promptId, { nodeId: parsed.nodeId ?? this.executing.nodeId, contentType: parsed.contentType, bytes: parsed.bytes });
  }

  /** A new connection: its first malformed frame is reported again. */
  reconnected(): void {
    this.malformedReported = false;
  }
}
