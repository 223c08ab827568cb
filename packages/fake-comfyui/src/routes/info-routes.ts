/** `/system_stats`, `/features`, `/object_info` and the small listings, per version. */
import type { ServerResponse } from 'node:http';
import type { FakeHost } from '../fake-host.js';
import { sendJson, sendNotFound } from '../http-util.js';
import { SERVER_FEATURES } from '../socket-hub.js';

const RAM = 25276502016;

export function systemStats(host: FakeHost, res: ServerResponse): void {
  const version = host.settings.version;
  sendJson(res, 200, {
    system: {
      os: version === '2026' ? 'linux' : 'posix',
      ram_total: RAM,
      ram_free: RAM - 729247744,
      comfyui_version: version === '2026' ? '0.12.0' : version === 'legacy' ? '0.2.2' : '0.3.64',
      required_frontend_version: '1.27.10',
      installed_templates_version: null,
      required_templates_version: '0.1.94',
      python_version: '3.11.2 (main, Apr 28 2025, 14:11:48) [GCC 12.2.0]',
      pytorch_version: '2.8.0+cpu',
      embedded_python: false,
      argv: ['main.py', '--cpu', '--listen', '127.0.0.1', '--port', String(host.port())],
    },
    devices: [{ name: 'cpu', type: 'cpu', index: null, vram_total: RAM, vram_free: RAM - 729247744, torch_vram_total: RAM, torch_vram_free: RAM - 729247744 }],
  });
}

export function features(host: FakeHost, res: ServerResponse): void {
  if (host.settings.version === 'legacy') return sendNotFound(res);
  sendJson(res, 200, SERVER_FEATURES);
}

export function objectInfo(host: FakeHost, className: string | undefined, res: ServerResponse): void {
  const all = host.registry.objectInfo(host.state.inputFiles());
  if (className === undefined) return sendJson(res, 200, all);
  sendJson(res, 200, Object.hasOwn(all, className) ? { [className]: all[className] } : {});
}

export function models(host: FakeHost, folder: string | undefined, res: ServerResponse): void {
  const folders: Record<string, readonly string[]> = { checkpoints: host.registry.checkpoints, loras: [], vae: [], upscale_models: [], embeddings: [] };
  if (folder === undefined) return sendJson(res, 200, Object.keys(folders));
  const files = Object.hasOwn(folders, folder) ? folders[folder] : undefined;
  if (!files) return sendNotFound(res);
  sendJson(res, 200, files);
}
