import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, PROJECT_ROOT } from '../src/config.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('configuration', () => {
  it('has working defaults: embedded database under the project, port 4000, migrations on start', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 4000, host: '127.0.0.1', databaseUrl: undefined, dataDir: path.join(PROJECT_ROOT, '.data'),
      migrateOnStart: true, seedDemoData: true, embeddedPostgresPort: 0,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080', HOST: '0.0.0.0', DATABASE_URL: 'postgres://u:p@db:5432/app', SECRETS_KEY: KEY,
      MIGRATE_ON_START: 'false', SEED_DEMO_DATA: 'no', DATA_DIR: '/var/lib/dmg', EMBEDDED_PG_PORT: '5544',
    });
    expect(config).toMatchObject({
      port: 8080, host: '0.0.0.0', databaseUrl: 'postgres://u:p@db:5432/app', migrateOnStart: false,
      seedDemoData: false, dataDir: '/var/lib/dmg', embeddedPostgresPort: 5544,
    });
    expect(config.secretsKey).toEqual(Buffer.alloc(32, 7));
    expect(loadConfig({ SECRETS_KEY: 'ab'.repeat(32) }).secretsKey).toEqual(Buffer.alloc(32, 0xab));
  });

  it('keeps source archives itself, at the address it listens on, unless PUBLIC_URL and S3_BUCKET say otherwise', () => {
    expect(loadConfig({})).toMatchObject({ publicUrl: undefined, objectStorage: { kind: 'embedded' } });
    expect(loadConfig({ PUBLIC_URL: 'https://deploy.example.com/' }).publicUrl).toBe('https://deploy.example.com');
    const s3 = { S3_BUCKET: 'sources', S3_ACCESS_KEY_ID: 'AKIA1', S3_SECRET_ACCESS_KEY: 'secret' };
    expect(loadConfig(s3).objectStorage).toEqual({
      kind: 's3', bucket: 'sources', endpoint: undefined, region: 'us-east-1', accessKeyId: 'AKIA1', secretAccessKey: 'secret', forcePathStyle: false,
    });
    // An endpoint of one's own (MinIO and the like) is addressed path-style unless told otherwise.
    expect(loadConfig({ ...s3, S3_ENDPOINT: 'http://minio:9000', S3_REGION: 'eu-west-1' }).objectStorage)
      .toMatchObject({ endpoint: 'http://minio:9000', region: 'eu-west-1', forcePathStyle: true });
    expect(loadConfig({ ...s3, S3_ENDPOINT: 'https://s3.example.com', S3_FORCE_PATH_STYLE: 'no' }).objectStorage).toMatchObject({ forcePathStyle: false });
  });

  it('compresses answers of 1 KB and more unless told otherwise', () => {
    expect(loadConfig({}).compressionMinBytes).toBe(1024);
    expect(loadConfig({ COMPRESSION_MIN_BYTES: '0' }).compressionMinBytes).toBe(0);
    expect(loadConfig({ COMPRESSION: 'false', COMPRESSION_MIN_BYTES: '4096' }).compressionMinBytes).toBe(false);
  });

  it('runs every document unless trusted documents are asked for; GraphiQL is off where they are required', () => {
    expect(loadConfig({})).toMatchObject({ trustedDocuments: { mode: 'off' }, graphiql: true });
    expect(loadConfig({ TRUSTED_DOCUMENTS: 'off', TRUSTED_DOCUMENTS_MANIFEST: 'ignored.json' }).trustedDocuments).toEqual({ mode: 'off' });
    expect(loadConfig({ TRUSTED_DOCUMENTS: 'Allow', TRUSTED_DOCUMENTS_MANIFEST: 'ops/manifest.json' })).toMatchObject({
      trustedDocuments: { mode: 'allow', manifestPath: path.join(PROJECT_ROOT, 'ops/manifest.json') }, graphiql: true,
    });
    expect(loadConfig({ TRUSTED_DOCUMENTS: 'require', TRUSTED_DOCUMENTS_MANIFEST: '/etc/app/manifest.json' })).toMatchObject({
      trustedDocuments: { mode: 'require', manifestPath: '/etc/app/manifest.json' }, graphiql: false,
    });
  });

  it('runs one process unless WORKERS asks for more; auto is one per core', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db', SECRETS_KEY: KEY }).workers).toBe(1);
    expect(loadConfig({ WORKERS: '4' }).workers).toBe(4);
    expect(loadConfig({ WORKERS: 'auto' }).workers).toBe(os.availableParallelism());
    expect(loadConfig({ WORKERS: ' Auto ' }).workers).toBe(os.availableParallelism());
    // With an external PostgreSQL its connection limit is the operator's to know; the embedded one's is ours.
    expect(loadConfig({ WORKERS: '64', DATABASE_URL: 'postgres://h/db', SECRETS_KEY: KEY }).workers).toBe(64);
    expect(loadConfig({ WORKERS: '17' }).workers).toBe(17);
    expect(loadConfig({ WORKERS: '1', DB_POOL_MAX: '500' }).workers).toBe(1);
  });

  it('reaches PostgreSQL directly unless told a transaction pooler is in between, which needs a direct URL too', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db', SECRETS_KEY: KEY })).toMatchObject({ databasePooler: 'none', databaseDirectUrl: undefined });
    expect(loadConfig({
      DATABASE_URL: 'postgres://bouncer:6432/db', DATABASE_POOLER: 'Transaction', DATABASE_DIRECT_URL: 'postgres://primary:5432/db', SECRETS_KEY: KEY,
    })).toMatchObject({ databasePooler: 'transaction', databaseDirectUrl: 'postgres://primary:5432/db' });
  });

  it('reads from replicas only when given, taking one out beyond 10 s of lag unless told otherwise', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://p/db', SECRETS_KEY: KEY })).toMatchObject({ databaseReplicaUrls: [], replicaMaxLagSeconds: 10 });
    expect(loadConfig({
      DATABASE_URL: 'postgres://p/db', SECRETS_KEY: KEY, DATABASE_REPLICA_URLS: 'postgres://r1/db, postgresql://r2:5433/db', REPLICA_MAX_LAG: '30',
    })).toMatchObject({ databaseReplicaUrls: ['postgres://r1/db', 'postgresql://r2:5433/db'], replicaMaxLagSeconds: 30 });
  });

  it('traces only when an OTLP endpoint is set, and not when the SDK is disabled', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({ endpoint: 'http://collector:4318', serviceName: 'deployments-gateway' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c', OTEL_SERVICE_NAME: 'gw-eu' }).tracing?.serviceName).toBe('gw-eu');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
  });

  it.each([
    [{ DATABASE_REPLICA_URLS: 'postgres://r/db' }, 'DATABASE_REPLICA_URLS is used with DATABASE_URL (the primary), which is not set'],
    [{ DATABASE_URL: 'postgres://p/db', SECRETS_KEY: KEY, DATABASE_REPLICA_URLS: 'postgres://r/db,' }, 'DATABASE_REPLICA_URLS entry 2 is empty'],
    [{ DATABASE_URL: 'postgres://p/db', SECRETS_KEY: KEY, DATABASE_REPLICA_URLS: 'postgres://r/db,mysql://x/db' }, 'DATABASE_REPLICA_URLS entry 2: must use the postgres:// scheme'],
    [{ DATABASE_URL: 'postgres://p/db', SECRETS_KEY: KEY, REPLICA_MAX_LAG: '0' }, 'REPLICA_MAX_LAG must be an integer from 1 to 3600'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL of an OTLP/HTTP collector'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'maybe' }, 'OTEL_SDK_DISABLED must be true or false'],
    [{ DATABASE_URL: 'postgres://h/db', SECRETS_KEY: KEY, DATABASE_POOLER: 'session' }, 'DATABASE_POOLER must be one of none, transaction (got "session")'],
    [{ DATABASE_URL: 'postgres://h/db', SECRETS_KEY: KEY, DATABASE_POOLER: 'transaction' }, 'DATABASE_DIRECT_URL is required with DATABASE_POOLER=transaction'],
    [{ DATABASE_POOLER: 'transaction' }, 'DATABASE_POOLER applies to DATABASE_URL, which is not set'],
    [{ DATABASE_DIRECT_URL: 'postgres://h/db' }, 'DATABASE_DIRECT_URL is used with DATABASE_URL, which is not set'],
    [{ DATABASE_URL: 'postgres://h/db', SECRETS_KEY: KEY, DATABASE_DIRECT_URL: 'mysql://h/db' }, 'DATABASE_DIRECT_URL must use the postgres:// scheme'],
    [{ WORKERS: 'two' }, 'WORKERS must be auto or an integer from 1 to 256 (got "two")'],
    [{ WORKERS: '0' }, 'WORKERS must be auto or an integer from 1 to 256 (got "0")'],
    [{ WORKERS: '1.5' }, 'WORKERS must be auto or an integer from 1 to 256 (got "1.5")'],
    [{ WORKERS: '257', DATABASE_URL: 'postgres://h/db', SECRETS_KEY: KEY }, 'WORKERS must be auto or an integer from 1 to 256 (got "257")'],
    [{ WORKERS: '18' }, "WORKERS 18 × (DB_POOL_MAX 10 + 1) is 198 connections, more than the embedded PostgreSQL's 190: set WORKERS to at most 17, lower DB_POOL_MAX, or use DATABASE_URL"],
    [{ WORKERS: '2', DB_POOL_MAX: '100' }, 'WORKERS 2 × (DB_POOL_MAX 100 + 1) is 202 connections'],
    [{ TRUSTED_DOCUMENTS: 'on' }, 'TRUSTED_DOCUMENTS must be one of off, allow, require (got "on")'],
    [{ TRUSTED_DOCUMENTS: 'require' }, 'TRUSTED_DOCUMENTS_MANIFEST is required with TRUSTED_DOCUMENTS=require'],
    [{ TRUSTED_DOCUMENTS: 'allow', TRUSTED_DOCUMENTS_MANIFEST: ' ' }, 'TRUSTED_DOCUMENTS_MANIFEST is required with TRUSTED_DOCUMENTS=allow'],
    [{ TRUSTED_DOCUMENTS: 'require', TRUSTED_DOCUMENTS_MANIFEST: 'm.json', GRAPHIQL: 'true' }, 'GRAPHIQL cannot be true with TRUSTED_DOCUMENTS=require'],
    [{ PORT: 'abc' }, 'PORT must be an integer from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT'],
    [{ MIGRATE_ON_START: 'maybe' }, 'MIGRATE_ON_START must be true or false (got "maybe")'],
    [{ DATABASE_URL: 'not a url', SECRETS_KEY: KEY }, 'DATABASE_URL must be a URL'],
    [{ DATABASE_URL: 'mysql://h/db', SECRETS_KEY: KEY }, 'DATABASE_URL must use the postgres:// scheme'],
    [{ DATABASE_URL: 'postgres://h:5432', SECRETS_KEY: KEY }, 'DATABASE_URL must name a database'],
    [{ DATABASE_URL: 'postgres://h/db' }, 'SECRETS_KEY is required when DATABASE_URL is set'],
    [{ SECRETS_KEY: 'too-short' }, 'SECRETS_KEY must be 32 bytes'],
    [{ SECRETS_KEY: Buffer.alloc(16).toString('base64') }, 'SECRETS_KEY must be 32 bytes'],
    [{ EMBEDDED_PG_PORT: '-1' }, 'EMBEDDED_PG_PORT'],
    [{ DATA_DIR: '/etc/hostname' }, 'DATA_DIR /etc/hostname exists and is not a directory'],
    [{ COMPRESSION: 'gzip' }, 'COMPRESSION must be true or false (got "gzip")'],
    [{ COMPRESSION: 'off', COMPRESSION_MIN_BYTES: '1kb' }, 'COMPRESSION_MIN_BYTES must be an integer from 0 to 104857600 (got "1kb")'],
    [{ PUBLIC_URL: 'deploy.example.com' }, 'PUBLIC_URL must be an http:// or https:// origin without a path'],
    [{ PUBLIC_URL: 'https://example.com/gateway' }, 'PUBLIC_URL must be an http:// or https:// origin without a path'],
    [{ S3_ENDPOINT: 'http://minio:9000' }, 'S3_ENDPOINT is used with S3_BUCKET, which is not set'],
    [{ S3_BUCKET: 'sources', S3_SECRET_ACCESS_KEY: 'secret' }, 'S3_ACCESS_KEY_ID is required with S3_BUCKET'],
    [{ S3_BUCKET: 'sources', S3_ACCESS_KEY_ID: 'AKIA1' }, 'S3_SECRET_ACCESS_KEY is required with S3_BUCKET'],
    [{ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 's', S3_FORCE_PATH_STYLE: 'sometimes' }, 'S3_FORCE_PATH_STYLE must be true or false'],
  ])('rejects %o naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('stops the service with one line naming the variable, not a stack trace', () => {
    const result = spawnSync(process.execPath, ['src/main.ts'], {
      cwd: PROJECT_ROOT, env: { ...process.env, PORT: 'eighty' }, encoding: 'utf8', timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")');
  });

  it('stops the service with one line for a bad WORKERS, before any worker starts', () => {
    const result = spawnSync(process.execPath, ['src/main.ts'], {
      cwd: PROJECT_ROOT, env: { ...process.env, WORKERS: 'all' }, encoding: 'utf8', timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('Invalid configuration: WORKERS must be auto or an integer from 1 to 256 (got "all")');
    expect(result.stdout).toBe('');
  });
});
