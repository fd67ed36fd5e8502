// The per-request object: who is asking, for which tenant, an EntityManager fork that can only see that
// tenant's rows, and the request's loaders. Resolvers reach data only through it.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppOrm } from '../db/orm-config.ts';
import type { TenantSafeEntityManager } from '../db/tenant-safe-entity-manager.ts';
import { scopeToTenant } from '../modules/common/tenant-scope.ts';
import { NO_SINGLE_TENANT, type Principal } from '../modules/tenancy/authenticate.ts';
import type { ApiKeyCache } from '../modules/tenancy/api-key-cache.ts';
import type { SecretCipher, SecretDecryptionError } from '../modules/secrets/secret-cipher.ts';
import type { DecryptedValuesCache } from '../modules/secrets/decrypted-values-cache.ts';
import { revealerFor, type SecretRevealer } from '../modules/secrets/secret-revealer.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { DatabaseNotifications } from '../db/database-notifications.ts';
import type { DeploymentChangeFeed } from '../modules/deployments/live/deployment-change-feed.ts';
import type { ReadReplicas, ReadTarget } from '../db/read-replicas.ts';
import type { SourceArchives } from '../modules/storage/source-archives.ts';
import type { ContainerRegistry } from '../modules/registry/container-registry.ts';
import type { OperationTransaction } from '../modules/idempotency/keyed-write.ts';
import { RequestLoaders } from './loaders.ts';
import { tenantRequired } from './errors.ts';

export interface AppServices {
  orm: AppOrm;
  cipher: SecretCipher;
  /** Verified keys, when the service keeps them (see api-key-cache.ts). */
  apiKeys?: ApiKeyCache;
  /** Request budgets per API key (and failed authentications per address); none: unlimited. */
  rateLimiter?: RateLimiter;
  /** Secret values kept decrypted, per tenant, for callers that may read them (decrypted-values-cache.ts); none: none kept. */
  decryptedValues?: DecryptedValuesCache;
  /** Told of every secret that cannot be decrypted (the app logs and counts it). */
  reportUnreadableSecret?: (error: SecretDecryptionError) => void;
  /** The process's LISTEN connection; without it, subscriptions are refused. */
  notifications?: DatabaseNotifications;
  /** Live deployment changes (the app makes it from `notifications`). */
  deploymentChanges?: DeploymentChangeFeed;
  /** Read replicas (DATABASE_REPLICA_URLS); none: every read on `orm`. */
  replicas?: ReadReplicas;
  /** How long a data plane's claim or report keeps a revision's lease (REVISION_LEASE_SECONDS). Default 60. */
  revisionLeaseSeconds?: number;
  /** Source archives and the object store holding them; none: no upload URLs, and no source_tarball_path is accepted. */
  sourceArchives?: SourceArchives;
  /** The container registry this service is the token server of (REGISTRY_*); none: push-token answers 501. */
  registry?: ContainerRegistry;
  /** In demo mode, the file that keeps the demo key: GraphQL's answer to a missing or wrong key names it. */
  demoKeyFile?: string;
}

export const DEFAULT_REVISION_LEASE_SECONDS = 60;

export interface GraphQLContext {
  principal: Principal;
  /**
   * The request's reads: on a replica in rotation (`replica` names it), or on the primary. The same
   * EntityManager at every call, made at the first.
   */
  em: () => TenantSafeEntityManager;
  loaders: RequestLoaders;
  replica: string | undefined;
  /** The same tenant's view of the primary: live updates load changes there, and a failed replica's reads rerun there. */
  primaryEm: () => TenantSafeEntityManager;
  /**
   * The primary, not scoped to a tenant, for a data plane's statements: they act for every tenant of its key at
   * once and name those tenants themselves (revisions/lifecycle/data-plane-writer.ts). Nothing else uses it.
   */
  dataPlaneEm: () => EntityManager;
  revisionLeaseSeconds: number;
  cipher: SecretCipher;
  sourceArchives: SourceArchives | undefined;
  registry: ContainerRegistry | undefined;
  /** What decrypts secret values for this caller; null: it may not see them. */
  revealer: SecretRevealer | null;
  reportUnreadableSecret: (error: SecretDecryptionError) => void;
  /** Where subscriptions get their streams. */
  deploymentChanges: DeploymentChangeFeed | undefined;
  /**
   * Runs after each write commits, before its answer: with read replicas, the caller's next reads wait for a
   * replica that has replayed the write (read your writes, db/read-replicas.ts). Not set when the operation
   * runs in a transaction of its door's, which runs it after its own commit.
   */
  afterCommit: (() => Promise<void>) | undefined;
}


/** Whose writes a read must see: the key's, in the tenant it acts for. */
const writerOf = (principal: Principal) => `${principal.apiKeyId}/${principal.tenantId}`;

/** The writers a write is noted for: a data plane acting for all its tenants wrote for each of them. */
const writersOf = (principal: Principal) => (principal.tenantId === NO_SINGLE_TENANT
  ? principal.tenantIds.map((tenantId) => `${principal.apiKeyId}/${tenantId}`)
  : [writerOf(principal)]);

/**
 * The context of one operation of `principal`'s, made in the operation's turn (nothing before it reads one).
 * At once, unless replicas are in rotation and the caller's last write position is kept outside this process.
 */
export function createGraphQLContext(principal: Principal, services: AppServices): GraphQLContext | Promise<GraphQLContext> {
  const { replicas } = services;
  if (!replicas) return contextOn({ orm: services.orm, replica: undefined }, principal, services);
  const target = replicas.pickFor(writerOf(principal));
  return target instanceof Promise ? target.then((t) => contextOn(t, principal, services)) : contextOn(target, principal, services);
}

function contextOn({ orm, replica }: ReadTarget, principal: Principal, services: AppServices): GraphQLContext {
  const { replicas } = services;
  // Forked on first use: `{ __typename }`, introspection and documents refused before execution read nothing,
  // and a fork (a copy of the ORM's filters and configuration) cost them about 20 µs.
  let scoped: TenantSafeEntityManager | undefined;
  const em = () => (scoped ??= ofTheTenant(orm, principal));
  const revealer = revealerFor(principal, services.cipher, services.decryptedValues);
  return {
    principal, em, loaders: new RequestLoaders(em, revealer), replica,
    primaryEm: () => ofTheTenant(services.orm, principal),
    dataPlaneEm: () => services.orm.em.fork(),
    revisionLeaseSeconds: services.revisionLeaseSeconds ?? DEFAULT_REVISION_LEASE_SECONDS,
    cipher: services.cipher,
    sourceArchives: services.sourceArchives,
    registry: services.registry,
    revealer,
    reportUnreadableSecret: services.reportUnreadableSecret ?? (() => {}),
    deploymentChanges: services.deploymentChanges,
    afterCommit: replicas && (async () => {
      await Promise.all(writersOf(principal).map((writer) => replicas.noteWrite(writer)));
    }),
  };
}

/** The caller's tenant's view of `orm`; a data-plane key acting for several tenants has none to read. */
function ofTheTenant(orm: ReadTarget['orm'], principal: Principal): TenantSafeEntityManager {
  if (principal.tenantId === NO_SINGLE_TENANT) throw tenantRequired();
  return scopeToTenant(orm.em, principal.tenantId);
}

/**
 * Points the rest of the operation's reads at the primary: a write reads what it wrote there, and a read a
 * replica failed runs again there (replica-fallback.plugin.ts).
 */
export function readFromPrimary(ctx: GraphQLContext): void {
  if (ctx.replica === undefined) return;
  ctx.replica = undefined;
  // On first use, as the context's own: a data plane acting for several tenants has no tenant to read in, and
  // is refused only if it reads.
  let primary: TenantSafeEntityManager | undefined;
  ctx.em = () => (primary ??= ctx.primaryEm());
  ctx.loaders = new RequestLoaders(ctx.em, ctx.revealer);
}

/**
 * Points the operation at the transaction its door holds (a write under an Idempotency-Key): it reads and
 * writes there, on the primary, and what waits for a write's commit waits for the door's.
 */
export function useTransaction(ctx: GraphQLContext, transaction: OperationTransaction): void {
  ctx.replica = undefined;
  ctx.em = () => transaction.em;
  ctx.primaryEm = () => transaction.em;
  ctx.loaders = new RequestLoaders(ctx.em, ctx.revealer);
  if (ctx.afterCommit) transaction.afterCommit.push(ctx.afterCommit);
  ctx.afterCommit = undefined;
}
