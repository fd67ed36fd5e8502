// Environment, parsed and validated once. Everything else receives a typed Config and never reads
// process.env itself, so a bad value is reported at start-up, not on the first request that needs it.
import { createPrivateKey } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Config {
  /** 0 picks a free port (tests); the address is printed at start. */
  port: number;
  host: string;
  /** External PostgreSQL; when absent an embedded PostgreSQL is started under `dataDir`. */
  databaseUrl: string | undefined;
  /** How DATABASE_URL reaches PostgreSQL: directly, or through a pooler in transaction mode (PgBouncer). */
  databasePooler: DatabasePooler;
  /**
   * A connection that keeps its session (no transaction pooler between): LISTEN and migrations. Unset: DATABASE_URL.
   * Required with a transaction pooler, which hands each transaction a different server connection.
   */
  databaseDirectUrl: string | undefined;
  /** Streaming replicas of the primary for reads (DATABASE_REPLICA_URLS); empty: every read on the primary. */
  databaseReplicaUrls: string[];
  /** A replica further behind than this is taken out of rotation (REPLICA_MAX_LAG, seconds). */
  replicaMaxLagSeconds: number;
  /** Where the embedded PostgreSQL, its generated secrets key and the demo API key live. */
  dataDir: string;
  /** 32-byte AES-256-GCM key for secret values; unset: the key in `dataDir/secrets.key` (embedded mode; see secrets-key.ts). */
  secretsKey: Buffer | undefined;
  /** A key that only reads: secrets written under it stay readable while a rotation moves them to the current key. */
  secretsKeyPrevious: Buffer | undefined;
  /** Secret values kept decrypted (SECRET_VALUES_CACHE_ENTRIES, _MB); maxEntries 0: none kept (decrypted-values-cache.ts). */
  secretValuesCache: { maxEntries: number; maxBytes: number };
  migrateOnStart: boolean;
  seedDemoData: boolean;
  /** Port for the embedded PostgreSQL; 0 picks a free one at every start. */
  embeddedPostgresPort: number;
  /** NODE_ENV=production: introspection, GraphiQL and field suggestions default to off. */
  production: boolean;
  graphqlIntrospection: boolean;
  /** Off by default in production and always with trusted documents required (GraphiQL sends its own documents). */
  graphiql: boolean;
  /** Which /graphql documents run: any (off), a manifest's by id and any other (allow), only the manifest's (require). */
  trustedDocuments: TrustedDocumentsConfig;
  /** Origins allowed to call from a browser; empty: no CORS headers at all (same-origin only). */
  corsOrigins: string[];
  /** Largest request body accepted; larger ones get 413. */
  maxBodyBytes: number;
  /** Responses of at least this many bytes are compressed for clients that ask; false: never compressed. */
  compressionMinBytes: number | false;
  /** Requests per minute per API key; 0 turns rate limiting off. */
  rateLimitPerMinute: number;
  /** Open subscription streams (live updates) per API key and process. */
  subscriptionsPerKey: number;
  /** How long a data plane's claim or report keeps a revision's lease (REVISION_LEASE_SECONDS). */
  revisionLeaseSeconds: number;
  /** Shared rate-limit budget across replicas; in-memory when absent. */
  redisUrl: string | undefined;
  logLevel: LogLevel;
  database: DatabaseTimeouts;
  /** How long SIGTERM/SIGINT waits for requests in flight before cutting them off. */
  shutdownGraceMs: number;
  /** How long the port stays open after SIGTERM (answering, not ready) so a load balancer can move traffic away. */
  shutdownDelayMs: number;
  /** Processes serving the port (node:cluster); 1 runs the service in this one process, as it always did. */
  workers: number;
  /** OpenTelemetry spans exported over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT); none: tracing off. */
  tracing: { endpoint: string; serviceName: string } | undefined;
  /** The service's origin as clients reach it (PUBLIC_URL), for the URLs it hands out; unset: the address it listens on. */
  publicUrl: string | undefined;
  /** Where source archives are kept: the built-in store under `dataDir/objects`, or an S3-compatible store (S3_*). */
  objectStorage: { kind: 'embedded' } | ({ kind: 's3' } & S3Settings);
  /** The container registry this service is the token server of (REGISTRY_*); unset: push-token answers 501. */
  registry: RegistrySettings | undefined;
}

/** A Docker distribution registry with token authentication (REGISTRY_* variables; docs/operations.md#image-pushes). */
export interface RegistrySettings {
  /** The registry's address as clients and this service reach it (REGISTRY_URL), an origin: `https://registry.example.com`. */
  url: string;
  /** The first path segments of every repository this service grants (REGISTRY_REPOSITORY_PREFIX). */
  repositoryPrefix: string;
  /** The registry's `auth.token.service`, the tokens' audience (REGISTRY_SERVICE); default: REGISTRY_URL's host. */
  service: string;
  /** The registry's `auth.token.issuer`, the tokens' `iss` (REGISTRY_TOKEN_ISSUER). */
  issuer: string;
  /** The PEM of the private key that signs the tokens (REGISTRY_SIGNING_KEY: the PEM itself, or a file holding it). */
  signingKeyPem: string;
}

/** An S3-compatible object store (S3_* variables; docs/operations.md#source-archives). */
export interface S3Settings {
  /** The store's address (S3_ENDPOINT); unset: AWS S3 in `region`. Clients and data planes reach it through the URLs. */
  endpoint: string | undefined;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `https://endpoint/bucket/key` rather than `https://bucket.endpoint/key` (MinIO and most self-hosted stores). */
  forcePathStyle: boolean;
}

export const TRUSTED_DOCUMENTS_MODES = ['off', 'allow', 'require'] as const;
export type TrustedDocumentsMode = (typeof TRUSTED_DOCUMENTS_MODES)[number];
/** The manifest (document id → document) is read and checked against the schema at start-up (trusted-documents.ts). */
export type TrustedDocumentsConfig = { mode: 'off' } | { mode: 'allow' | 'require'; manifestPath: string };

export const DATABASE_POOLERS = ['none', 'transaction'] as const;
export type DatabasePooler = (typeof DATABASE_POOLERS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface DatabaseTimeouts {
  poolMax: number;
  /** Opening a connection, and waiting for a free one in the pool. */
  connectTimeoutMs: number;
  /** PostgreSQL cancels a statement that runs longer (statement_timeout). */
  statementTimeoutMs: number;
}

/** One line, naming the variable, for the operator who set it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function parsePort(env: Env, name: string, fallback: number, allowZero = false): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const min = allowZero ? 0 : 1;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > 65535) {
    throw new ConfigError(name, `must be an integer from ${min} to 65535 (got "${raw}")`);
  }
  return Number(raw);
}

function parseInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function parseOrigins(env: Env, name: string): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  return raw.split(',').map((origin) => origin.trim()).filter(Boolean).map((origin) => {
    if (origin === '*') return origin;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new ConfigError(name, `must be a comma-separated list of origins such as https://app.example.com, or * (got "${origin}")`);
    }
    if (url.origin !== origin.replace(/\/$/, '')) throw new ConfigError(name, `lists "${origin}", which is not an origin (scheme://host[:port], no path)`);
    return url.origin;
  });
}

function parseRedisUrl(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const url = URL.parse(raw);
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) throw new ConfigError(name, 'must be a URL such as redis://127.0.0.1:6379');
  return raw;
}

function parsePooler(env: Env, name: string, databaseUrl: string | undefined, directUrl: string | undefined): DatabasePooler {
  const raw = read(env, name)?.toLowerCase() ?? 'none';
  if (!(DATABASE_POOLERS as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${DATABASE_POOLERS.join(', ')} (got "${raw}")`);
  if (raw === 'transaction' && databaseUrl === undefined) throw new ConfigError(name, 'applies to DATABASE_URL, which is not set');
  if (raw === 'transaction' && directUrl === undefined) {
    throw new ConfigError('DATABASE_DIRECT_URL', 'is required with DATABASE_POOLER=transaction: LISTEN (key revocations, live updates) and '
      + 'migrations need a session of their own, which a transaction pooler does not keep (a direct postgres:// URL of the same database)');
  }
  return raw as DatabasePooler;
}

/** Comma-separated postgres:// URLs, each checked as DATABASE_URL is (named by its position, never by its password). */
function parseReplicaUrls(env: Env, name: string, databaseUrl: string | undefined): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  if (databaseUrl === undefined) throw new ConfigError(name, 'is used with DATABASE_URL (the primary), which is not set');
  return raw.split(',').map((part, i) => {
    const url = part.trim();
    if (url === '') throw new ConfigError(name, `entry ${i + 1} is empty`);
    try {
      return parseDatabaseUrl({ [name]: url }, name)!;
    } catch (error) {
      throw new ConfigError(name, `entry ${i + 1}: ${(error as Error).message.replace(`Invalid configuration: ${name} `, '')}`);
    }
  });
}

/** On when OTEL_EXPORTER_OTLP_ENDPOINT is set (the OTel SDK reads it, and OTEL_EXPORTER_OTLP_HEADERS, itself). */
function parseTracing(env: Env): Config['tracing'] {
  const endpoint = read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint === undefined || parseBoolean(env, 'OTEL_SDK_DISABLED', false)) return undefined;
  const url = URL.parse(endpoint);
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ConfigError('OTEL_EXPORTER_OTLP_ENDPOINT', `must be an http:// or https:// URL of an OTLP/HTTP collector, e.g. http://collector:4318 (got "${endpoint}")`);
  }
  return { endpoint, serviceName: read(env, 'OTEL_SERVICE_NAME') ?? 'deployments-gateway' };
}

/** An http(s) origin, without a path (`https://deploy.example.com`, `http://10.0.0.5:4000`); a trailing `/` is dropped. */
function parseOrigin(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const url = URL.parse(raw);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== raw.replace(/\/$/, '')) {
    throw new ConfigError(name, `must be an http:// or https:// origin without a path, e.g. https://deploy.example.com (got "${raw}")`);
  }
  return url.origin;
}

/** S3_BUCKET chooses an S3-compatible store; its credentials are then required. Without it, the built-in store. */
function parseObjectStorage(env: Env): Config['objectStorage'] {
  const given = {
    S3_ENDPOINT: parseOrigin(env, 'S3_ENDPOINT'),
    S3_REGION: read(env, 'S3_REGION'),
    S3_ACCESS_KEY_ID: read(env, 'S3_ACCESS_KEY_ID'),
    S3_SECRET_ACCESS_KEY: read(env, 'S3_SECRET_ACCESS_KEY'),
    S3_FORCE_PATH_STYLE: read(env, 'S3_FORCE_PATH_STYLE'),
  };
  const bucket = read(env, 'S3_BUCKET');
  if (bucket === undefined) {
    const stray = Object.entries(given).find(([, value]) => value !== undefined);
    if (stray) throw new ConfigError(stray[0], 'is used with S3_BUCKET, which is not set (without it, source archives are kept in DATA_DIR/objects)');
    return { kind: 'embedded' };
  }
  for (const name of ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
    if (given[name] === undefined) throw new ConfigError(name, 'is required with S3_BUCKET');
  }
  return {
    kind: 's3', bucket, endpoint: given.S3_ENDPOINT, region: given.S3_REGION ?? 'us-east-1',
    accessKeyId: given.S3_ACCESS_KEY_ID!, secretAccessKey: given.S3_SECRET_ACCESS_KEY!,
    // Self-hosted stores (an endpoint of your own) mostly know only path-style addresses.
    forcePathStyle: parseBoolean(env, 'S3_FORCE_PATH_STYLE', given.S3_ENDPOINT !== undefined),
  };
}

/** A repository prefix: lowercase path components as the distribution registry accepts them. */
const REPOSITORY_PREFIX = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;

/** REGISTRY_URL turns the token server on; the signing key is then required. A key in a file is read here, once. */
function parseRegistry(env: Env): Config['registry'] {
  const url = parseOrigin(env, 'REGISTRY_URL');
  const others = ['REGISTRY_SIGNING_KEY', 'REGISTRY_REPOSITORY_PREFIX', 'REGISTRY_SERVICE', 'REGISTRY_TOKEN_ISSUER'] as const;
  if (url === undefined) {
    const stray = others.find((name) => read(env, name) !== undefined);
    if (stray) throw new ConfigError(stray, 'is used with REGISTRY_URL, which is not set (without it, push-token answers 501)');
    return undefined;
  }
  const key = read(env, 'REGISTRY_SIGNING_KEY');
  if (key === undefined) throw new ConfigError('REGISTRY_SIGNING_KEY', 'is required with REGISTRY_URL: the PEM private key (RSA, or EC P-256) that signs registry tokens, or the path of a file holding it');
  // A PEM in one line of an env file has its line breaks written as `\n`.
  let pem = key.replaceAll('\\n', '\n');
  if (!pem.startsWith('-----BEGIN')) {
    const file = path.resolve(PROJECT_ROOT, key);
    if (!existsSync(file)) throw new ConfigError('REGISTRY_SIGNING_KEY', `is neither a PEM key nor a file that exists (${file})`);
    pem = readFileSync(file, 'utf8');
  }
  try {
    const parsed = createPrivateKey(pem);
    const curve = parsed.asymmetricKeyDetails?.namedCurve;
    if (parsed.asymmetricKeyType !== 'rsa' && !(parsed.asymmetricKeyType === 'ec' && curve === 'prime256v1')) throw new Error(`a ${parsed.asymmetricKeyType} key`);
  } catch (error) {
    throw new ConfigError('REGISTRY_SIGNING_KEY', `must be an RSA or EC P-256 private key in PEM (${(error as Error).message})`);
  }
  const prefix = read(env, 'REGISTRY_REPOSITORY_PREFIX') ?? 'deployments';
  if (!REPOSITORY_PREFIX.test(prefix)) throw new ConfigError('REGISTRY_REPOSITORY_PREFIX', `must be lowercase repository path components such as deployments or apps/prod (got "${prefix}")`);
  return {
    url, repositoryPrefix: prefix, signingKeyPem: pem,
    service: read(env, 'REGISTRY_SERVICE') ?? new URL(url).host,
    issuer: read(env, 'REGISTRY_TOKEN_ISSUER') ?? 'deployments-gateway',
  };
}

function parseLogLevel(env: Env, name: string): LogLevel {
  const raw = read(env, name)?.toLowerCase() ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${LOG_LEVELS.join(', ')} (got "${raw}")`);
  return raw as LogLevel;
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

function parseBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}

function parseTrustedDocuments(env: Env): TrustedDocumentsConfig {
  const raw = read(env, 'TRUSTED_DOCUMENTS')?.toLowerCase() ?? 'off';
  if (!(TRUSTED_DOCUMENTS_MODES as readonly string[]).includes(raw)) {
    throw new ConfigError('TRUSTED_DOCUMENTS', `must be one of ${TRUSTED_DOCUMENTS_MODES.join(', ')} (got "${raw}")`);
  }
  const mode = raw as TrustedDocumentsMode;
  if (mode === 'off') return { mode };
  const manifest = read(env, 'TRUSTED_DOCUMENTS_MANIFEST');
  if (manifest === undefined) {
    throw new ConfigError('TRUSTED_DOCUMENTS_MANIFEST', `is required with TRUSTED_DOCUMENTS=${mode}: the path of the manifest of trusted documents (a JSON object of document id → document)`);
  }
  return { mode, manifestPath: path.resolve(PROJECT_ROOT, manifest) };
}

/** GraphiQL sends documents its user types, which TRUSTED_DOCUMENTS=require refuses: it stays off there. */
function parseGraphiql(env: Env, production: boolean, trustedDocuments: TrustedDocumentsConfig): boolean {
  const graphiql = parseBoolean(env, 'GRAPHIQL', !production && trustedDocuments.mode !== 'require');
  if (graphiql && trustedDocuments.mode === 'require') {
    throw new ConfigError('GRAPHIQL', 'cannot be true with TRUSTED_DOCUMENTS=require: GraphiQL sends documents that are not in the manifest');
  }
  return graphiql;
}

function parseDatabaseUrl(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL such as postgres://user:password@host:5432/dbname');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(name, `must use the postgres:// scheme (got "${url.protocol}//")`);
  }
  if (url.pathname.length <= 1) throw new ConfigError(name, 'must name a database (postgres://host/dbname)');
  return raw;
}

/** Accepts 32 bytes as base64 (44 characters) or hex (64 characters). */
export function parseSecretsKey(raw: string, name = 'SECRETS_KEY'): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(raw) && key.toString('base64') !== raw)) {
    throw new ConfigError(name, 'must be 32 bytes, base64 (44 characters) or hex (64 characters); generate one with `openssl rand -base64 32`');
  }
  return key;
}

/** Most workers accepted: far more than any machine's cores, few enough to catch a typo. */
export const MAX_WORKERS = 256;
/** The embedded PostgreSQL's max_connections (embedded-postgres.ts), less a few for the tools and psql. */
const EMBEDDED_CONNECTIONS = 190;
/** DB_POOL_MAX when not set; also the pool of an ORM configured without one (db/orm-config.ts). */
export const DEFAULT_POOL_MAX = 10;

/** `auto`: one worker per core the process may use. */
function parseWorkers(env: Env, name: string): number {
  const raw = read(env, name);
  if (raw === undefined) return 1;
  if (raw.toLowerCase() === 'auto') return os.availableParallelism();
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_WORKERS) {
    throw new ConfigError(name, `must be auto or an integer from 1 to ${MAX_WORKERS} (got "${raw}")`);
  }
  return Number(raw);
}

/**
 * Each worker opens up to DB_POOL_MAX connections and its LISTEN connection. The embedded server's limit
 * is known: a sum above it would show only under load, as requests failing for want of a connection.
 */
function checkEmbeddedConnections(env: Env, workers: number, poolMax: number): void {
  const connections = workers * (poolMax + 1);
  if (workers === 1 || connections <= EMBEDDED_CONNECTIONS) return;
  const setting = read(env, 'WORKERS')!.toLowerCase() === 'auto' ? `auto (${workers} workers)` : String(workers);
  throw new ConfigError('WORKERS', `${setting} × (DB_POOL_MAX ${poolMax} + 1) is ${connections} connections, more than the embedded PostgreSQL's ${EMBEDDED_CONNECTIONS}: `
    + `set WORKERS to at most ${Math.floor(EMBEDDED_CONNECTIONS / (poolMax + 1))}, lower DB_POOL_MAX, or use DATABASE_URL`);
}

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = parseDatabaseUrl(env, 'DATABASE_URL');
  const databaseDirectUrl = parseDatabaseUrl(env, 'DATABASE_DIRECT_URL');
  if (databaseDirectUrl !== undefined && databaseUrl === undefined) throw new ConfigError('DATABASE_DIRECT_URL', 'is used with DATABASE_URL, which is not set');
  const databasePooler = parsePooler(env, 'DATABASE_POOLER', databaseUrl, databaseDirectUrl);
  const databaseReplicaUrls = parseReplicaUrls(env, 'DATABASE_REPLICA_URLS', databaseUrl);
  const rawKey = read(env, 'SECRETS_KEY');
  const secretsKey = rawKey === undefined ? undefined : parseSecretsKey(rawKey);
  if (databaseUrl !== undefined && secretsKey === undefined) {
    // Without it, secrets written by one instance could not be read by the next; never invent one silently.
    throw new ConfigError('SECRETS_KEY', 'is required when DATABASE_URL is set (generate one with `openssl rand -base64 32`)');
  }
  const rawPrevious = read(env, 'SECRETS_KEY_PREVIOUS');
  const secretsKeyPrevious = rawPrevious === undefined ? undefined : parseSecretsKey(rawPrevious, 'SECRETS_KEY_PREVIOUS');
  const dataDir = path.resolve(PROJECT_ROOT, read(env, 'DATA_DIR') ?? '.data');
  const production = read(env, 'NODE_ENV') === 'production';
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) throw new ConfigError('DATA_DIR', `${dataDir} exists and is not a directory`);
  // Checked even when COMPRESSION is off, so that turning it on later cannot reveal a bad value.
  const compressionMinBytes = parseInteger(env, 'COMPRESSION_MIN_BYTES', 1024, 0, 100 * 1024 * 1024);
  const trustedDocuments = parseTrustedDocuments(env);
  const poolMax = parseInteger(env, 'DB_POOL_MAX', DEFAULT_POOL_MAX, 1, 1000);
  const workers = parseWorkers(env, 'WORKERS');
  if (databaseUrl === undefined) checkEmbeddedConnections(env, workers, poolMax);
  return {
    port: parsePort(env, 'PORT', 4000, true),
    host: read(env, 'HOST') ?? '127.0.0.1',
    databaseUrl,
    databasePooler,
    databaseDirectUrl,
    databaseReplicaUrls,
    replicaMaxLagSeconds: parseInteger(env, 'REPLICA_MAX_LAG', 10, 1, 3600),
    dataDir,
    secretsKey,
    secretsKeyPrevious,
    migrateOnStart: parseBoolean(env, 'MIGRATE_ON_START', true),
    seedDemoData: parseBoolean(env, 'SEED_DEMO_DATA', true),
    embeddedPostgresPort: parsePort(env, 'EMBEDDED_PG_PORT', 0, true),
    production,
    graphqlIntrospection: parseBoolean(env, 'GRAPHQL_INTROSPECTION', !production),
    graphiql: parseGraphiql(env, production, trustedDocuments),
    trustedDocuments,
    corsOrigins: parseOrigins(env, 'CORS_ORIGINS'),
    maxBodyBytes: parseInteger(env, 'MAX_BODY_BYTES', 100 * 1024, 1024, 100 * 1024 * 1024),
    compressionMinBytes: parseBoolean(env, 'COMPRESSION', true) ? compressionMinBytes : false,
    rateLimitPerMinute: parseInteger(env, 'RATE_LIMIT_PER_MINUTE', 1200, 0, 1_000_000),
    secretValuesCache: {
      maxEntries: parseInteger(env, 'SECRET_VALUES_CACHE_ENTRIES', 20_000, 0, 10_000_000),
      maxBytes: parseInteger(env, 'SECRET_VALUES_CACHE_MB', 16, 1, 4096) * 1024 * 1024,
    },
    subscriptionsPerKey: parseInteger(env, 'SUBSCRIPTIONS_PER_KEY', 10, 1, 10_000),
    revisionLeaseSeconds: parseInteger(env, 'REVISION_LEASE_SECONDS', 60, 5, 86_400),
    redisUrl: parseRedisUrl(env, 'REDIS_URL'),
    logLevel: parseLogLevel(env, 'LOG_LEVEL'),
    database: {
      poolMax,
      connectTimeoutMs: parseInteger(env, 'DB_CONNECT_TIMEOUT_MS', 3000, 100, 600_000),
      statementTimeoutMs: parseInteger(env, 'DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 3_600_000),
    },
    shutdownGraceMs: parseInteger(env, 'SHUTDOWN_GRACE_SECONDS', 10, 0, 3600) * 1000,
    shutdownDelayMs: parseInteger(env, 'SHUTDOWN_DELAY_SECONDS', 0, 0, 3600) * 1000,
    workers,
    tracing: parseTracing(env),
    publicUrl: parseOrigin(env, 'PUBLIC_URL'),
    objectStorage: parseObjectStorage(env),
    registry: parseRegistry(env),
  };
}
