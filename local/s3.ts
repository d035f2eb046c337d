/** The local S3 store (s3rver), persisted under the data folder. It checks no signatures: link security never relies on it. */
import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';

export async function startS3(opts: { directory: string; bucket: string }) {
  mkdirSync(opts.directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: opts.directory,
    silent: true,
    // Any credentials will do on one machine; download links are secured by the API's own signature, not S3's.
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: opts.bucket }],
  });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => server.close() };
}
