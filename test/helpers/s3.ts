/**
 * An S3-compatible server (s3rver) in this process on a free loopback port, with one bucket:
 * what the snapshot-source tests and bench/snapshot-follow.ts publish to.
 */
import S3rver from "s3rver";
import { tempDir } from "./env.ts";

/** A running S3 server: the environment a stockd child reaches it with, and a client of the bucket. */
export interface TestS3 {
  /** S3_ENDPOINT, S3_REGION and the credentials, as Bun's S3 client reads them. */
  env: Record<string, string>;
  bucket: Bun.S3Client;
  close(): Promise<void>;
}

export async function startS3(bucket: string): Promise<TestS3> {
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: tempDir("stockd-s3rver-"),
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  // s3rver accepts this one pair of credentials.
  const env = {
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_REGION: "us-east-1",
    S3_ACCESS_KEY_ID: "S3RVER",
    S3_SECRET_ACCESS_KEY: "S3RVER",
  };
  const client = new Bun.S3Client({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    accessKeyId: env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    bucket,
  });
  return { env, bucket: client, close: () => server.close() };
}
