/** Shared test helpers: the recorded LoadImage → ImageInvert → SaveImage graph, an upload and a JSON POST. */
import { makePng, type FakeComfyUI } from '@runload/fake-comfyui';

export const GRAPH = {
  '1': { class_type: 'LoadImage', inputs: { image: 'probe_in.png' } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { filename_prefix: 'probe', images: ['2', 0] } },
};

export async function uploadProbe(fake: FakeComfyUI, bytes = makePng(4, 4, () => [1, 2, 3, 255]), name = 'probe_in.png') {
  const form = new FormData();
  form.append('image', new Blob([bytes]), name);
  form.append('type', 'input');
  return (await (await fetch(`${fake.url}/upload/image`, { method: 'POST', body: form })).json()) as { name: string; subfolder: string; type: string };
}

export async function post(fake: FakeComfyUI, path: string, body: unknown) {
  const res = await fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text.startsWith('{') ? text : 'null') as Record<string, unknown>) : null };
}
