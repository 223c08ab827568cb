/**
 * Benchmark 6: a large upload through runload onto an S3-compatible server (s3rver in its own
 * process), against the same bytes sent to the same server by the AWS SDK alone. Alternating
 * rounds, the median of each.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { peakRssMiB, percentile, ROOT, startListening } from './harness.js';
import { type BenchOptions, prepareRunload, startOn, writeWav } from './http-paths.js';

const pct = (base: number, value: number) => `${((100 * base) / value).toFixed(0)}%`;
const verdict = (met: boolean) => (met ? 'meets the target' : '**misses the target**');

export async function benchS3Upload(options: BenchOptions): Promise<void> {
  const { say, quick } = options;
  const uploadMiB = quick ? 32 : 256;
  const s3dir = mkdtempSync(path.join(os.tmpdir(), 'runload-bench-s3rver-'));
  const s3 = await startListening('bench/s3rver-server.ts', [], { S3RVER_DIR: s3dir, S3RVER_BUCKET: 'bench' });
  const data = await prepareRunload(
    's3',
    {
      RUNLOAD_BLOB_URL: 's3://bench/runload',
      RUNLOAD_S3_ENDPOINT: s3.url,
      RUNLOAD_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    options.fakeUrl,
    { uploadMiB },
  );
  const server = await startOn(data);
  const wav = path.join(s3dir, 'big.wav');
  await writeWav(wav, uploadMiB);
  say(`## 6. Upload of a ${uploadMiB} MiB WAV onto an S3-compatible server (s3rver, its own process)`);
  const before = peakRssMiB(server.pid);
  const sdkRounds: number[] = [];
  const upRounds: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    const sdk = execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/s3-sdk-upload.ts'), wav, s3.url, 'bench', `baseline/${round}`], { cwd: ROOT });
    sdkRounds.push(Number(sdk.toString().trim()));
    const curl = execFileSync('curl', ['-s', '-o', '/dev/null', '-w', '%{time_total} %{http_code}', '-H', `authorization: Bearer ${server.key}`, '-F', `file=@${wav};type=audio/wav`, `${server.url}/api/v1/assets`]);
    const [seconds, status] = curl.toString().trim().split(' ');
    if (status !== '201') throw new Error(`upload answered ${status}`);
    upRounds.push(Number(seconds));
  }
  const sdkSeconds = percentile(sdkRounds, 50);
  const upSeconds = percentile(upRounds, 50);
  const after = peakRssMiB(server.pid);
  say(`- baseline (the AWS SDK alone, lib-storage multipart from the file, 5 MiB parts, 4 in flight): ${(uploadMiB / sdkSeconds).toFixed(0)} MiB/s (median of 3)`);
  say(`- runload (multipart form parsed, type detected, hashed, streamed to a temporary key, copied to its content key inside the store): ${(uploadMiB / upSeconds).toFixed(0)} MiB/s (median of 3) — ${pct(sdkSeconds, upSeconds)} of baseline (target ≥ 70%): ${verdict(sdkSeconds / upSeconds >= 0.7)}`);
  say(`- server peak memory: ${before.toFixed(0)} MiB before, ${after.toFixed(0)} MiB after: growth ${(after - before).toFixed(0)} MiB (target < 64 MiB): ${verdict(after - before < 64)}`);
  say('');
  await server.stop();
  await s3.stop();
  rmSync(s3dir, { recursive: true, force: true });
}
