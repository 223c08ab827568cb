/**
 * `/view`, `/upload/image` (and `/upload/mask`) and `/internal/files/{type}`, with ComfyUI's
 * rules: `type` defaulting to output, 400/403/404 cases, basename reduction, byte
 * ranges; upload dedupe by content and ` (n)` renaming, `overwrite`, 413 above the limit.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { posix } from 'node:path';
import { Readable } from 'node:stream';
import type { FakeHost } from '../fake-host.js';
import { fileKey, type FileType } from '../fake-state.js';
import { sendEmpty, sendJson, sendText } from '../http-util.js';
import { SERVER_FEATURES } from '../socket-hub.js';

const TYPES: readonly string[] = ['input', 'output', 'temp'];
const MIME: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', flac: 'audio/flac', wav: 'audio/x-wav', mp3: 'audio/mpeg', ogg: 'audio/ogg',
  json: 'application/json', txt: 'text/plain',
};

/** The subfolder as a key part, or null when it leaves the base directory. */
function normalSubfolder(subfolder: string): string | null {
  const normal = posix.normalize(subfolder || '.');
  if (normal.startsWith('/') || normal === '..' || normal.startsWith('../')) return null;
  return normal === '.' ? '' : normal.replace(/\/$/, '');
}

/**
 * `/view`: a file as ComfyUI serves it (ranges included). With `dripMs` above 0, a whole file's
 * answer sends its headers at once and then one byte every `dripMs` (a server that is never idle
 * for long, yet takes minutes per file).
 */
export function view(host: FakeHost, url: URL, req: IncomingMessage, res: ServerResponse, dripMs = 0): void {
  let filename = url.searchParams.get('filename');
  if (filename === null) return sendEmpty(res, 404);
  let type = url.searchParams.get('type') || 'output';
  const annotated = /^(.*) \[(input|output|temp)\]$/.exec(filename);
  if (annotated) [filename, type] = [annotated[1] as string, annotated[2] as string];
  if (!filename || filename.startsWith('/') || filename.includes('..') || !TYPES.includes(type)) return sendEmpty(res, 400);
  const subfolder = normalSubfolder(url.searchParams.get('subfolder') ?? '');
  if (subfolder === null) return sendEmpty(res, 403);
  const name = posix.basename(filename);
  const bytes = host.state.files.get(fileKey(type, subfolder, name));
  if (!bytes) return sendEmpty(res, 404);
  const ext = name.split('.').pop()?.toLowerCase() ?? '';
  const headers: Record<string, string | number> = {
    'content-type': ['html', 'htm', 'js', 'css'].includes(ext) ? 'application/octet-stream' : (MIME[ext] ?? 'application/octet-stream'),
    'content-disposition': `filename="${name}"`,
    'accept-ranges': 'bytes',
  };
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  if (range && (range[1] || range[2])) {
    const start = range[1] ? Number(range[1]) : Math.max(0, bytes.length - Number(range[2]));
    const end = range[1] && range[2] ? Math.min(Number(range[2]), bytes.length - 1) : bytes.length - 1;
    if (start > end || start >= bytes.length) {
      res.writeHead(416, { 'content-range': `bytes */${bytes.length}` });
      return void res.end();
    }
    res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${bytes.length}`, 'content-length': end - start + 1 });
    return void res.end(bytes.subarray(start, end + 1));
  }
  res.writeHead(200, { ...headers, 'content-length': bytes.length });
  if (dripMs > 0) return drip(res, bytes, dripMs);
  res.end(bytes);
}

function drip(res: ServerResponse, bytes: Buffer, everyMs: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    res.write(bytes.subarray(sent, sent + 1));
    sent += 1;
    if (sent >= bytes.length) {
      clearInterval(timer);
      res.end();
    }
  }, everyMs);
  res.once('close', () => clearInterval(timer));
}

export async function upload(host: FakeHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (Number(req.headers['content-length'] ?? 0) > SERVER_FEATURES.max_upload_size) {
    req.resume();
    return sendText(res, 413, `413: Request Entity Too Large`);
  }
  const request = new Request('http://fake/upload', {
    method: 'POST',
    headers: req.headers as Record<string, string>,
    body: Readable.toWeb(req) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const form = await request.formData();
  const file = form.get('image');
  const rawType = form.get('type');
  if (rawType !== null && !TYPES.includes(String(rawType))) throw new TypeError(`unknown upload type ${String(rawType)}`); // ComfyUI crashes: 500
  const type = (rawType === null ? 'input' : String(rawType)) as FileType;
  if (!file || typeof file === 'string' || !file.name) return sendEmpty(res, 400);
  const sentSubfolder = String(form.get('subfolder') ?? '');
  const subfolder = normalSubfolder(sentSubfolder);
  if (subfolder === null || file.name.includes('..') || file.name.startsWith('/')) return sendEmpty(res, 400);
  const overwrite = ['true', '1'].includes(String(form.get('overwrite')));
  const bytes = Buffer.from(await file.arrayBuffer());
  const dot = file.name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [file.name.slice(0, dot), file.name.slice(dot)] : [file.name, ''];
  let name = file.name;
  let duplicate = false;
  for (let n = 1; !overwrite && host.state.files.has(fileKey(type, subfolder, name)); n += 1) {
    if (host.state.files.get(fileKey(type, subfolder, name))?.equals(bytes)) {
      duplicate = true;
      break;
    }
    name = `${stem} (${n})${ext}`;
  }
  if (!duplicate) {
    host.state.files.delete(fileKey(type, subfolder, name)); // re-insert: newest last, for /internal/files
    host.state.files.set(fileKey(type, subfolder, name), bytes);
  }
  sendJson(res, 200, { name, subfolder: sentSubfolder, type });
}

/** `GET /internal/files/{type}`: top-level names, newest first. */
export function internalFiles(host: FakeHost, type: string, res: ServerResponse): void {
  if (!TYPES.includes(type)) return sendJson(res, 400, { error: 'Invalid directory type' });
  const names = [...host.state.files.keys()].filter((k) => k.startsWith(`${type}//`)).map((k) => k.slice(type.length + 2));
  sendJson(res, 200, names.reverse());
}
