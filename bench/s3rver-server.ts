/** s3rver (an S3-protocol server on npm) in its own process for the benchmark. Prints `listening on http://…`. */
import S3rver from 's3rver';

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: process.env['S3RVER_DIR'] ?? '.',
  configureBuckets: [{ name: process.env['S3RVER_BUCKET'] ?? 'bench' }],
});
const { port } = await server.run();
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
