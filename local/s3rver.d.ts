// s3rver ships no types; this is the part of its API the local runtime uses.
declare module 's3rver' {
  interface S3rverOptions {
    address?: string;
    port?: number;
    directory: string;
    silent?: boolean;
    configureBuckets?: { name: string }[];
    allowMismatchedSignatures?: boolean;
  }
  /** The part of Koa's context (s3rver is a Koa app) the local store's grant check uses. */
  export interface S3rverContext {
    method: string;
    path: string;
    query: Record<string, unknown>;
    get(header: string): string;
    set(header: string, value: string): void;
    status: number;
    type: string;
    body: unknown;
    /** s3rver's store of the objects (its filesystem store): what the preconditions read. */
    store: {
      existsObject(bucket: string, key: string): Promise<boolean>;
      getMetadata(bucket: string, key: string): Promise<{ etag: string }>;
    };
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Koa's middleware, composed when the server starts listening. */
    middleware: ((ctx: S3rverContext, next: () => Promise<void>) => Promise<void>)[];
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
