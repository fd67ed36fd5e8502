// The deployment writes, each one transaction on the primary through MikroORM (the unit of work for the
// deployment and revision rows, batched inserts for secrets and references): create, change (a new revision
// when the change names something to build), delete, delete many, redeploy. The semantics are
// docs/decisions.md#writes'. Both doors call these through the handlers beside the mutations
// (deployment-mutations.graphql.ts).
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { camelCase, type CamelCase } from '../../common/legacy-json.ts';
import { inOneTransaction } from '../../common/one-transaction.ts';
import type { SecretCipher } from '../../secrets/secret-cipher.ts';
import type { SourceArchives } from '../../storage/source-archives.ts';
import type { SourceUpload } from '../../storage/source-upload.entity.ts';
import type { ContainerRegistry } from '../../registry/container-registry.ts';
import { IntegrationSchema } from '../../integrations/integration.entity.ts';
import { checkDeploymentListener } from '../../listeners/deployment-listener.ts';
import { RevisionSchema } from '../../revisions/revision.entity.ts';
import { TenantSchema } from '../../tenancy/tenant.entity.ts';
import { DeploymentSchema, type Deployment } from '../deployment.entity.ts';
import type { DeploymentReadModel, SecretReadModel, SecretReferenceReadModel } from '../deployment-read-model.ts';
import { SecretReferenceSchema } from '../secret-reference.entity.ts';
import { SecretSchema } from '../secret.entity.ts';
import type { DeploymentSource } from '../deployment-enums.ts';
import { ifMatchAllows } from './deployment-etag.ts';
import { REVISION_CONFIG_SOURCES, createProblems, patchProblems } from './deployment-rules.ts';
import { DeploymentNameTaken, DeploymentNotFound, InvalidValues, PreconditionFailed, RevisionNotFound, valueError } from './write-problems.ts';
import {
  BUILD_KEYS, REVISION_KEYS, type CreateRequest, type PatchRequest, type SecretReferenceRequest, type SecretRequest,
  type SourceRevisionConfigRequest,
} from './write-requests.ts';
import { resourceSpecEntity, sourceConfigEntity, sourceConfigChanges, revisionConfigEntity, type RevisionConfig } from './write-entities.ts';

export interface WriteScope {
  /** The primary's EntityManager, scoped to the caller's tenant. */
  em: EntityManager;
  tenantId: string;
  cipher: SecretCipher;
  /** Where the source archives a PATCH names are issued and kept; none: no source_tarball_path is accepted. */
  sourceArchives?: SourceArchives;
  /** The registry this service is the token server of: an image named in it must be the deployment's, and there. */
  registry?: ContainerRegistry;
  /** Runs once each write has committed, before its answer (the caller's reads then wait for replicas to have it). */
  afterCommit?: () => Promise<void>;
}

/**
 * A deployment as a write left it, made from what the write sent (the row as the ORM wrote it, the version the
 * row's trigger gives it), so that the answer does not read it back: the secrets and references where the write
 * replaced them (the others are read if the answer asks for them: a lean read, with the write's rows before it). test/write-answers.test.ts holds it to a read afterwards.
 */
export interface WrittenDeployment {
  row: DeploymentReadModel;
  secrets?: SecretReadModel[];
  references?: SecretReferenceReadModel[];
}

/** Most deployments one bulk delete takes (the original's maxItems). */
export const MAX_BULK_DELETE = 100;

export async function createDeployment(scope: WriteScope, request: CreateRequest): Promise<WrittenDeployment> {
  const problems = createProblems(request);
  if (problems.length > 0) throw new InvalidValues(problems);
  return inTransaction(scope, async (tx) => {
    // The name's lock, then the check, in one statement: concurrent creates of one name queue on the lock, so
    // exactly one finds the name free (the function: migrations/Migration20261128020500_deployment_name_check.ts).
    const [{ taken }] = await tx.execute<[{ taken: boolean }]>('select deployment_name_taken(?, ?) as taken', [scope.tenantId, request.name]);
    if (taken) throw new DeploymentNameTaken(request.name);
    await checkIntegration(tx, request.source_config.integration_id);
    await checkDeploymentListener(tx, scope.tenantId, request.source_config);
    const now = new Date();
    const id = randomUUID();
    // A new deployment has pushed nothing: an image of this service's registry would be another deployment's.
    await scope.registry?.checkPushedImage(scope.tenantId, id, request.source_revision_config.image_uri);
    const builds = BUILD_KEYS.some((key) => request.source_revision_config[key] != null);
    const revisionConfig = revisionConfigEntity(request.source_revision_config);
    const revisionId = builds ? randomUUID() : null;
    const deployment = tx.create(DeploymentSchema, {
      id, tenant: tx.getReference(TenantSchema, scope.tenantId), name: request.name, status: 'AWAITING_DATABASE',
      source: request.source, deploymentType: request.source_config.deployment_type ?? 'dev', remoteReconciled: false,
      sourceConfig: sourceConfigEntity(request.source_config), resourceSpec: resourceSpecEntity(request.source_config.resource_spec),
      sourceRevisionConfig: revisionConfig, latestRevisionId: revisionId, createdAt: now, updatedAt: now, version: 1,
    } as never) as Deployment;
    // The row first (its secrets and revision refer to it), with its latest revision already named: it is
    // written once.
    await tx.flush();
    const written = await replaceSecrets(tx, scope, deployment, false, request.secrets, request.secret_references ?? []);
    // A new deployment has no revision a first one could supersede.
    if (revisionId) await addRevision(tx, scope, deployment, request.source, revisionConfig, now, false, revisionId);
    return { ...written, row: rowOf(tx, deployment) };
  });
}

export async function updateDeployment(scope: WriteScope, id: string, request: PatchRequest, ifMatch: string | undefined): Promise<WrittenDeployment> {
  return inTransaction(scope, async (tx) => {
    const deployment = await lockDeployment(tx, scope, id, ifMatch);
    const problems = patchProblems({
      source: deployment.source, deploymentType: deployment.deploymentType, repoRef: deployment.sourceRevisionConfig?.repoRef,
      sourceConfig: storedSourceConfig(deployment),
    }, request);
    const archive = await sourceArchiveOf(tx, scope, deployment, request);
    if (typeof archive === 'string') problems.push(valueError(['source_revision_config', 'source_tarball_path'], request.source_revision_config!.source_tarball_path, archive));
    if (problems.length > 0) throw new InvalidValues(problems);
    await scope.registry?.checkPushedImage(scope.tenantId, deployment.id, request.source_revision_config?.image_uri);
    const now = new Date();
    const config = request.source_config ?? {};
    const revision = request.source_revision_config ?? {};
    const builds = REVISION_KEYS.some((key) => revision[key] != null) || request.secrets != null || config.resource_spec != null;
    const settings = sourceConfigChanges(config);
    // A PATCH that changes nothing (`{}`, values equal to the stored ones) writes nothing: the same version and
    // ETag, no update event (docs/decisions.md#the-originals-open-points, 9).
    const stored = deployment.sourceConfig as unknown as Record<string, unknown>;
    if (!builds && request.secret_references == null && Object.entries(settings).every(([key, value]) => stored[key] === value)) return { row: rowOf(tx, deployment) };
    Object.assign(deployment.sourceConfig, settings);
    if (config.resource_spec != null) deployment.resourceSpec = resourceSpecEntity(config.resource_spec) as never;
    const written = await replaceSecrets(tx, scope, deployment, true, request.secrets ?? undefined, request.secret_references ?? undefined);
    if (builds) {
      const merged = mergedRevisionConfig(deployment, revision, request.revision_source ?? deployment.source);
      deployment.sourceRevisionConfig = merged as never;
      const revisionId = await addRevision(tx, scope, deployment, request.revision_source ?? deployment.source, merged, now);
      if (archive && typeof archive !== 'string') archive.usedByRevisionId ??= revisionId;
    }
    changed(deployment, now);
    return { ...written, row: rowOf(tx, deployment) };
  });
}

export async function deleteDeployment(scope: WriteScope, id: string, ifMatch: string | undefined): Promise<void> {
  await inTransaction(scope, async (tx) => {
    const deployment = await lockDeployment(tx, scope, id, ifMatch);
    await removeDeployments(tx, scope, [deployment.id]);
  });
}

/** Deletes those of `ids` the tenant has, in one transaction; the others are reported, not an error. */
export async function deleteDeployments(scope: WriteScope, ids: readonly string[]): Promise<{ deleted: string[]; notFound: string[] }> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  return inTransaction(scope, async (tx) => {
    const found = await tx.find(DeploymentSchema, { tenant: scope.tenantId, id: { $in: unique } }, { fields: ['id'], lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } });
    const deleted = new Set(found.map((deployment) => deployment.id));
    await removeDeployments(tx, scope, [...deleted]);
    return { deleted: unique.filter((id) => deleted.has(id)), notFound: unique.filter((id) => !deleted.has(id)) };
  });
}

/** A new revision built from what revision `revisionId` of the deployment was built from. */
export async function redeployRevision(scope: WriteScope, id: string, revisionId: string, ifMatch: string | undefined): Promise<WrittenDeployment> {
  return inTransaction(scope, async (tx) => {
    const deployment = await lockDeployment(tx, scope, id, ifMatch);
    const chosen = await tx.findOne(RevisionSchema, { tenant: scope.tenantId, deployment: id, id: revisionId.toLowerCase() });
    if (!chosen) throw new RevisionNotFound(revisionId);
    const config = { ...(chosen.sourceRevisionConfig ?? {}) } as RevisionConfig;
    const now = new Date();
    deployment.sourceRevisionConfig = config as never;
    await addRevision(tx, scope, deployment, chosen.source, config, now);
    changed(deployment, now);
    return { row: rowOf(tx, deployment) };
  });
}

/**
 * The deployment's row changes in this write: its time, and the version its row's trigger gives it (one more;
 * the row is locked, and the write updates it in one statement), which the answer's ETag begins with.
 */
function changed(deployment: Deployment, now: Date): void {
  deployment.updatedAt = now;
  deployment.version += 1;
}

/** The deployment's row as the ORM writes it (its column names, its jsonb values), which a read would return. */
function rowOf(tx: EntityManager, deployment: Deployment): DeploymentReadModel {
  const meta = tx.getMetadata().find(DeploymentSchema)!;
  const row = tx.getDriver().mapDataToFieldNames(tx.getComparator().prepareEntity(deployment), false, meta.properties, true);
  return { ...row, created_at: deployment.createdAt, updated_at: deployment.updatedAt } as DeploymentReadModel;
}

/** Each write's transaction: its reads go at once, its inserts, updates and deletes with the COMMIT (or the next read). */
const inTransaction = <T>(scope: WriteScope, write: (tx: EntityManager) => Promise<T>): Promise<T> =>
  inOneTransaction(scope, write, { writesWaitForNext: true });

/**
 * The deployment, locked for the rest of the transaction, once `If-Match` (if sent) allows the write. One fixed
 * statement, its row then merged into the unit of work (`map`), which tracks its changes as findOne's would:
 * findOne built the same query each time, an eighth of a PATCH's writer in a profile.
 */
async function lockDeployment(tx: EntityManager, scope: WriteScope, id: string, ifMatch: string | undefined): Promise<Deployment> {
  const [row] = await tx.execute('select * from deployment where tenant_id = ? and id = ? for update', [scope.tenantId, id.toLowerCase()]);
  if (!row) throw new DeploymentNotFound(id);
  const deployment = tx.map(DeploymentSchema, row) as Deployment;
  if (ifMatch !== undefined && !ifMatchAllows(ifMatch, deployment.version)) throw new PreconditionFailed(id, deployment.version);
  return deployment;
}

/**
 * The upload a PATCH names as `source_tarball_path` for an `internal_source` build, locked until the write
 * commits, or why it is refused (docs/decisions.md#source-archives); undefined when it names none.
 */
async function sourceArchiveOf(tx: EntityManager, scope: WriteScope, deployment: Deployment, request: PatchRequest): Promise<SourceUpload | string | undefined> {
  const path = request.source_revision_config?.source_tarball_path;
  // For another source the rules have already refused the key.
  if (path == null || (request.revision_source ?? deployment.source) !== 'internal_source') return undefined;
  if (!scope.sourceArchives) return 'this service keeps no source archives, so it accepts no source_tarball_path';
  return scope.sourceArchives.claim(tx, scope.tenantId, deployment.id, path);
}

/** Another tenant's integration is refused as an unknown one is: its existence is not the caller's to learn. */
async function checkIntegration(tx: EntityManager, integrationId: string | null | undefined): Promise<void> {
  if (integrationId == null) return;
  if (await tx.count(IntegrationSchema, { id: integrationId.toLowerCase() }) === 0) {
    throw new InvalidValues([valueError(['source_config', 'integration_id'], integrationId, `integration ${integrationId} not found`)]);
  }
}

function storedSourceConfig(deployment: Deployment) {
  const config = deployment.sourceConfig;
  return {
    integration_id: config.integrationId ?? null, repo_url: config.repoUrl ?? null, listener_id: config.listenerId ?? null,
    listener_config: config.listenerConfig ? { k8s_namespace: config.listenerConfig.k8sNamespace ?? null } : null,
  };
}

/**
 * The latest revision's values with the PATCH's non-null ones over them, each kept only where it belongs to the
 * new revision's source (an image does not follow a switch to a source archive); the commit is the build's to tell.
 */
function mergedRevisionConfig(deployment: Deployment, patch: SourceRevisionConfigRequest, source: DeploymentSource): RevisionConfig {
  const current = deployment.sourceRevisionConfig;
  const next = revisionConfigEntity(patch);
  const kept = <T>(key: keyof typeof REVISION_CONFIG_SOURCES, value: T | null | undefined) => ((REVISION_CONFIG_SOURCES[key] as readonly DeploymentSource[]).includes(source) ? value ?? null : null);
  const merged = { ...next };
  for (const key of REVISION_KEYS) {
    const property = camelCase(key) as CamelCase<typeof key>;
    merged[property] = next[property] ?? kept(key, current?.[property]);
  }
  return merged;
}

/**
 * A new QUEUED revision, now the deployment's latest. One still QUEUED (no data plane claimed it yet) is
 * superseded by it and ends SKIPPED (docs/decisions.md#revision-lifecycle); one in progress goes on.
 */
async function addRevision(
  tx: EntityManager, scope: WriteScope, deployment: Deployment, source: DeploymentSource, config: RevisionConfig, now: Date, supersede = true,
  id: string = randomUUID(),
): Promise<string> {
  if (supersede) {
    // By the deployment alone (its row, locked above, is the tenant's, and so are its revisions): a tenant's
    // statistics lag behind a burst of its writes, and the tenant's index then looked as cheap as this
    // statement's own (revision_queued_deployment_idx) while it read every revision of the tenant.
    await tx.execute(
      `update revision set status = 'SKIPPED', status_message = ?, updated_at = ? where deployment_id = ? and status = 'QUEUED'`,
      [`Superseded by revision ${id} before a data plane claimed it.`, now, deployment.id],
    );
  }
  // Through the unit of work: a native insert would return the columns that have defaults, and so be a read.
  tx.create(RevisionSchema, {
    id, tenant: tx.getReference(TenantSchema, scope.tenantId), deployment, status: 'QUEUED', source,
    sourceRevisionConfig: { ...config }, remoteReconciled: false, createdAt: now, updatedAt: now,
  } as never);
  deployment.latestRevisionId = id;
  return id;
}

/**
 * Replaces the whole list of secrets (values sealed with the current key, never logged) and/or of secret
 * references, and returns the lists it wrote; `stored`: the deployment has rows to remove first.
 */
async function replaceSecrets(
  tx: EntityManager, scope: WriteScope, deployment: Deployment, stored: boolean,
  secrets: SecretRequest[] | undefined, references: SecretReferenceRequest[] | undefined,
): Promise<Omit<WrittenDeployment, 'row'>> {
  const ofDeployment = { tenant: scope.tenantId, deployment: deployment.id };
  const written: Omit<WrittenDeployment, 'row'> = {};
  if (secrets) {
    if (stored) await tx.execute('delete from secret where tenant_id = ? and deployment_id = ?', [scope.tenantId, deployment.id]);
    const rows = secrets.map(({ name, value }, position) => ({ id: randomUUID(), ...ofDeployment, name, position, ...scope.cipher.seal(value, { deploymentId: deployment.id, name }) }));
    // One batched insert: the unit of work would add an entity and a change set per row, and nothing else.
    if (rows.length > 0) await tx.insertMany(SecretSchema, rows as never[]);
    // As a read by a caller who may see values finds them, decrypted already.
    written.secrets = rows.map(({ name, valueCiphertext, keyFingerprint }, position) => ({
      deployment_id: deployment.id, name, value_ciphertext: valueCiphertext.toString('base64'), key_fingerprint: keyFingerprint, revealed: secrets[position]!.value,
    }));
  }
  if (references) {
    if (stored) await tx.execute('delete from secret_reference where tenant_id = ? and deployment_id = ?', [scope.tenantId, deployment.id]);
    const rows = references.map(({ name, secret_name: secretName, secret_key: secretKey }, position) => ({ id: randomUUID(), ...ofDeployment, name, secretName, secretKey, position }));
    if (rows.length > 0) await tx.insertMany(SecretReferenceSchema, rows as never[]);
    written.references = rows.map(({ name, secretName, secretKey }) => ({ deployment_id: deployment.id, name, secret_name: secretName, secret_key: secretKey }));
  }
  return written;
}

/** Revisions, secrets and references first (no cascade in the schema), then the deployments (tags cascade). */
async function removeDeployments(tx: EntityManager, scope: WriteScope, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const where = { tenant: scope.tenantId, deployment: { $in: ids } };
  await tx.nativeDelete(RevisionSchema, where);
  await tx.nativeDelete(SecretSchema, where);
  await tx.nativeDelete(SecretReferenceSchema, where);
  await tx.nativeDelete(DeploymentSchema, { tenant: scope.tenantId, id: { $in: ids } });
}
