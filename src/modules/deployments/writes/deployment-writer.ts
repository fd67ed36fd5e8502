// The deployment writes, each one transaction on the primary through MikroORM's connection, tracking no entity
// (fixed statements for the deployment's row, with the columns the ORM maps; batched inserts for revisions,
// secrets and references): create, change (a new revision when the change names something to build), delete,
// delete many, redeploy. The semantics are
// docs/decisions.md#writes'. Both doors call these through the handlers beside the mutations
// (deployment-mutations.graphql.ts).
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityData, type EntityManager } from '@mikro-orm/postgresql';
import { inOneTransaction } from '../../common/one-transaction.ts';
import type { SecretCipher } from '../../secrets/secret-cipher.ts';
import type { SourceArchives } from '../../storage/source-archives.ts';
import type { SourceUpload } from '../../storage/source-upload.entity.ts';
import type { ContainerRegistry } from '../../registry/container-registry.ts';
import { IntegrationSchema } from '../../integrations/integration.entity.ts';
import { checkDeploymentListener } from '../../listeners/deployment-listener.ts';
import { RevisionSchema } from '../../revisions/revision.entity.ts';
import { DeploymentSchema, type Deployment } from '../deployment.entity.ts';
import type {
  DeploymentReadModel, SecretReadModel, SecretReferenceReadModel, StoredResourceSpec, StoredSourceRevisionConfig,
} from '../deployment-read-model.ts';
import { SecretReferenceSchema } from '../secret-reference.entity.ts';
import { SECRET_REFERENCE_FIELDS } from '../secret-fields.ts';
import { SecretSchema } from '../secret.entity.ts';
import type { DeploymentSource } from '../deployment-enums.ts';
import { ifMatchAllows } from './deployment-etag.ts';
import { REVISION_CONFIG_SOURCES, createProblems, patchProblems } from './deployment-rules.ts';
import { DeploymentNameTaken, DeploymentNotFound, InvalidValues, PreconditionFailed, RevisionNotFound, valueError } from './write-problems.ts';
import {
  BUILD_KEYS, REVISION_KEYS, type CreateRequest, type PatchRequest, type SecretReferenceRequest, type SecretRequest,
  type SourceRevisionConfigRequest,
} from './write-requests.ts';
import { resourceSpecEntity, sourceConfigEntity, sourceConfigChanges, revisionConfigEntity, storedRevisionConfig } from './write-entities.ts';

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
 * A deployment as a write left it, made from what the write sent (the row as it wrote it, the version the row's
 * trigger gives it), so that the answer does not read it back: the secrets where the write replaced them (else
 * read if the answer asks for them: a lean read, with the write's rows before it), and the references it replaced
 * or its lock read. test/write-answers.test.ts holds it to a read afterwards.
 */
export interface WrittenDeployment {
  row: DeploymentReadModel;
  secrets?: SecretReadModel[];
  references?: SecretReferenceReadModel[];
}

/** A deployment's row as a write locked it, and its secret references. */
interface LockedDeployment {
  row: DeploymentReadModel;
  references: SecretReferenceReadModel[];
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
    const revisionId = builds ? randomUUID() : null;
    const row = columnsOf(tx, newDeploymentProperties(scope.tenantId, id, request, revisionId, now)) as DeploymentReadModel;
    // The row first (its secrets and revision refer to it), with its latest revision already named: it is
    // written once.
    const columns = Object.keys(row);
    await tx.execute(`insert into deployment (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`, Object.values(row));
    const written = await replaceSecrets(tx, scope, id, false, request.secrets, request.secret_references ?? []);
    // A new deployment has no revision a first one could supersede.
    if (revisionId) await addRevision(tx, scope, id, request.source, row.source_revision_config!, now, false, revisionId);
    return { ...written, row };
  });
}

export async function updateDeployment(scope: WriteScope, id: string, request: PatchRequest, ifMatch: string | undefined): Promise<WrittenDeployment> {
  return inTransaction(scope, async (tx) => {
    const { row, references } = await lockDeployment(tx, scope, id, ifMatch);
    const problems = patchProblems(row, request);
    const archive = await sourceArchiveOf(tx, scope, row, request);
    if (typeof archive === 'string') problems.push(valueError(['source_revision_config', 'source_tarball_path'], request.source_revision_config!.source_tarball_path, archive));
    if (problems.length > 0) throw new InvalidValues(problems);
    await scope.registry?.checkPushedImage(scope.tenantId, row.id, request.source_revision_config?.image_uri);
    const now = new Date();
    const config = request.source_config ?? {};
    const revision = request.source_revision_config ?? {};
    const builds = REVISION_KEYS.some((key) => revision[key] != null) || request.secrets != null || config.resource_spec != null;
    const settings = sourceConfigChanges(config);
    // A PATCH that changes nothing (`{}`, values equal to the stored ones) writes nothing: the same version and
    // ETag, no update event (docs/decisions.md#the-originals-open-points, 9).
    const stored = row.source_config as Record<string, unknown>;
    if (!builds && request.secret_references == null && Object.entries(settings).every(([key, value]) => stored[key] === value)) return { row, references };
    const next = { ...row, source_config: { ...row.source_config, ...settings } };
    if (config.resource_spec != null) next.resource_spec = storedResourceSpec(tx, config.resource_spec);
    const written = await replaceSecrets(tx, scope, row.id, true, request.secrets ?? undefined, request.secret_references ?? undefined);
    if (builds) {
      const source = request.revision_source ?? row.source;
      next.source_revision_config = mergedRevisionConfig(row.source_revision_config, revision, source);
      next.latest_revision_id = await addRevision(tx, scope, row.id, source, next.source_revision_config, now);
      if (archive && typeof archive !== 'string') archive.usedByRevisionId ??= next.latest_revision_id;
    }
    return { references, ...written, row: await writeRow(tx, scope, next, now) };
  });
}

export async function deleteDeployment(scope: WriteScope, id: string, ifMatch: string | undefined): Promise<void> {
  await inTransaction(scope, async (tx) => {
    const { row } = await lockDeployment(tx, scope, id, ifMatch);
    await removeDeployments(tx, scope, [row.id]);
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
    const { row, references } = await lockDeployment(tx, scope, id, ifMatch);
    const [chosen] = await tx.execute<{ source: DeploymentSource; source_revision_config: StoredSourceRevisionConfig | null }[]>(
      'select source, source_revision_config from revision where tenant_id = ? and deployment_id = ? and id = ?', [scope.tenantId, row.id, revisionId.toLowerCase()],
    );
    if (!chosen) throw new RevisionNotFound(revisionId);
    const now = new Date();
    const config = { ...storedRevisionConfig({}), ...chosen.source_revision_config };
    const latest = await addRevision(tx, scope, row.id, chosen.source, config, now);
    return { references, row: await writeRow(tx, scope, { ...row, source_revision_config: config, latest_revision_id: latest }, now) };
  });
}

/**
 * The deployment's row as a change leaves it, written in one fixed statement (the columns a change may set): the
 * unit of work's change set over three embeddables, and the hydration of the locked row it needs, were a third of
 * a PATCH's CPU. Its trigger gives the row the next version (the row is locked), which the answer's ETag begins with.
 */
async function writeRow(tx: EntityManager, scope: WriteScope, next: DeploymentReadModel, now: Date): Promise<DeploymentReadModel> {
  await tx.execute(
    `update deployment set source_config = ?, resource_spec = ?, source_revision_config = ?, latest_revision_id = ?, updated_at = ?
     where tenant_id = ? and id = ?`,
    [next.source_config, next.resource_spec, next.source_revision_config, next.latest_revision_id, now, scope.tenantId, next.id],
  );
  return { ...next, updated_at: now, version: next.version + 1 };
}

/**
 * A new deployment's properties, every one of them, as the entity takes them. The create maps them to columns as
 * the ORM does (columnsOf) and inserts them in one fixed statement: the unit of work's create and flush were a
 * fifth of a create's CPU, and insertMany stores a json property inside an object embeddable (the resource
 * spec's labels) as a JSON string (MikroORM 7.2's nativeInsertMany maps embedded values without their `object`
 * flag). test/write-parity.test.ts holds the row to what the unit of work writes from the same properties.
 */
export function newDeploymentProperties(tenantId: string, id: string, request: CreateRequest, latestRevisionId: string | null, now: Date) {
  return {
    id, tenant: tenantId, name: request.name, status: 'AWAITING_DATABASE' as const, source: request.source,
    deploymentType: request.source_config.deployment_type ?? 'dev', remoteReconciled: false, imageVersion: null,
    sourceConfig: sourceConfigEntity(request.source_config), resourceSpec: resourceSpecEntity(request.source_config.resource_spec),
    sourceRevisionConfig: revisionConfigEntity(storedRevisionConfig(request.source_revision_config)), latestRevisionId, activeRevisionId: null,
    createdAt: now, updatedAt: now, version: 1,
  } satisfies Record<Exclude<keyof Deployment & string, 'tagValues' | 'secrets' | 'secretReferences'>, unknown>;
}

/**
 * A deployment's columns as the ORM writes them, from its properties (the embeddables' camelCase properties
 * mapped to the jsonb's keys, as the ORM maps them): what a read of the row would return.
 */
function columnsOf(tx: EntityManager, properties: EntityData<Deployment>): Partial<DeploymentReadModel> {
  return tx.getDriver().mapDataToFieldNames(properties, false, tx.getMetadata().find(DeploymentSchema)!.properties, true);
}

/** A resource spec as the ORM stores it. */
const storedResourceSpec = (tx: EntityManager, spec: StoredResourceSpec) => columnsOf(tx, { resourceSpec: resourceSpecEntity(spec) } as EntityData<Deployment>).resource_spec!;

/** Each write's transaction: its reads go at once, its inserts, updates and deletes with the COMMIT (or the next read). */
const inTransaction = <T>(scope: WriteScope, write: (tx: EntityManager) => Promise<T>): Promise<T> =>
  inOneTransaction(scope, write, { writesWaitForNext: true });

/** A secret reference's stored fields (secret-fields.ts) as `json_build_object`'s arguments. */
const REFERENCE_OBJECT = Object.keys(SECRET_REFERENCE_FIELDS).map((name) => `'${name}', r.${name}`).join(', ');

/**
 * The deployment's row, locked for the rest of the transaction, once `If-Match` (if sent) allows the write: one
 * fixed statement, its row as stored (what reads return), which the write changes and answers with. Its secret
 * references come with it: an answer that shows the record shows them, and a PATCH seldom replaces them (the
 * CLI's never does), so the answer need not read them after the write.
 */
async function lockDeployment(tx: EntityManager, scope: WriteScope, id: string, ifMatch: string | undefined): Promise<LockedDeployment> {
  const [locked] = await tx.execute<(DeploymentReadModel & { secret_references: Omit<SecretReferenceReadModel, 'deployment_id'>[] })[]>(
    `select d.*, coalesce((select json_agg(json_build_object(${REFERENCE_OBJECT}) order by r.position)
       from secret_reference r where r.tenant_id = d.tenant_id and r.deployment_id = d.id), '[]') as secret_references
     from deployment d where d.tenant_id = ? and d.id = ? for update of d`,
    [scope.tenantId, id.toLowerCase()],
  );
  if (!locked) throw new DeploymentNotFound(id);
  const { secret_references: references, ...row } = locked;
  if (ifMatch !== undefined && !ifMatchAllows(ifMatch, row.version)) throw new PreconditionFailed(id, row.version);
  return { row, references: references.map((reference) => ({ deployment_id: row.id, ...reference })) };
}

/**
 * The upload a PATCH names as `source_tarball_path` for an `internal_source` build, locked until the write
 * commits, or why it is refused (docs/decisions.md#source-archives); undefined when it names none.
 */
async function sourceArchiveOf(tx: EntityManager, scope: WriteScope, row: DeploymentReadModel, request: PatchRequest): Promise<SourceUpload | string | undefined> {
  const path = request.source_revision_config?.source_tarball_path;
  // For another source the rules have already refused the key.
  if (path == null || (request.revision_source ?? row.source) !== 'internal_source') return undefined;
  if (!scope.sourceArchives) return 'this service keeps no source archives, so it accepts no source_tarball_path';
  return scope.sourceArchives.claim(tx, scope.tenantId, row.id, path);
}

/** Another tenant's integration is refused as an unknown one is: its existence is not the caller's to learn. */
async function checkIntegration(tx: EntityManager, integrationId: string | null | undefined): Promise<void> {
  if (integrationId == null) return;
  if (await tx.count(IntegrationSchema, { id: integrationId.toLowerCase() }) === 0) {
    throw new InvalidValues([valueError(['source_config', 'integration_id'], integrationId, `integration ${integrationId} not found`)]);
  }
}

/**
 * The latest revision's values with the PATCH's non-null ones over them, each kept only where it belongs to the
 * new revision's source (an image does not follow a switch to a source archive); the commit is the build's to tell.
 */
function mergedRevisionConfig(current: StoredSourceRevisionConfig | null, patch: SourceRevisionConfigRequest, source: DeploymentSource): StoredSourceRevisionConfig {
  const next = storedRevisionConfig(patch);
  const kept = <T>(key: keyof typeof REVISION_CONFIG_SOURCES, value: T | null | undefined) => ((REVISION_CONFIG_SOURCES[key] as readonly DeploymentSource[]).includes(source) ? value ?? null : null);
  const merged = { ...next };
  for (const key of REVISION_KEYS) merged[key] = next[key] ?? kept(key, current?.[key]);
  return merged;
}

/**
 * A new QUEUED revision, now the deployment's latest. One still QUEUED (no data plane claimed it yet) is
 * superseded by it and ends SKIPPED (docs/decisions.md#revision-lifecycle); one in progress goes on.
 */
async function addRevision(
  tx: EntityManager, scope: WriteScope, deploymentId: string, source: DeploymentSource, config: StoredSourceRevisionConfig, now: Date, supersede = true,
  id: string = randomUUID(),
): Promise<string> {
  if (supersede) {
    // By the deployment alone (its row, locked above, is the tenant's, and so are its revisions): a tenant's
    // statistics lag behind a burst of its writes, and the tenant's index then looked as cheap as this
    // statement's own (revision_queued_deployment_idx) while it read every revision of the tenant.
    await tx.execute(
      `update revision set status = 'SKIPPED', status_message = ?, updated_at = ? where deployment_id = ? and status = 'QUEUED'`,
      [`Superseded by revision ${id} before a data plane claimed it.`, now, deploymentId],
    );
  }
  // A batched insert of one row, every column given (so nothing is returned, and it waits for the next
  // statement): the unit of work would add an entity and a change set, and nothing else.
  await tx.insertMany(RevisionSchema, [{
    id, tenant: scope.tenantId, deployment: deploymentId, status: 'QUEUED', source, sourceRevisionConfig: revisionConfigEntity(config),
    remoteReconciled: false, statusMessage: null, createdAt: now, updatedAt: now,
  }] as never[]);
  return id;
}

/**
 * Replaces the whole list of secrets (values sealed with the current key, never logged) and/or of secret
 * references, and returns the lists it wrote; `stored`: the deployment has rows to remove first.
 */
async function replaceSecrets(
  tx: EntityManager, scope: WriteScope, deploymentId: string, stored: boolean,
  secrets: SecretRequest[] | undefined, references: SecretReferenceRequest[] | undefined,
): Promise<Omit<WrittenDeployment, 'row'>> {
  const ofDeployment = { tenant: scope.tenantId, deployment: deploymentId };
  const written: Omit<WrittenDeployment, 'row'> = {};
  if (secrets) {
    if (stored) await tx.execute('delete from secret where tenant_id = ? and deployment_id = ?', [scope.tenantId, deploymentId]);
    const rows = secrets.map(({ name, value }, position) => ({ id: randomUUID(), ...ofDeployment, name, position, ...scope.cipher.seal(value, { deploymentId, name }) }));
    // One batched insert: the unit of work would add an entity and a change set per row, and nothing else.
    if (rows.length > 0) await tx.insertMany(SecretSchema, rows as never[]);
    // As a read by a caller who may see values finds them, decrypted already.
    written.secrets = rows.map(({ name, valueCiphertext, keyFingerprint }, position) => ({
      deployment_id: deploymentId, name, value_ciphertext: valueCiphertext.toString('base64'), key_fingerprint: keyFingerprint, revealed: secrets[position]!.value,
    }));
  }
  if (references) {
    if (stored) await tx.execute('delete from secret_reference where tenant_id = ? and deployment_id = ?', [scope.tenantId, deploymentId]);
    const rows = references.map(({ name, secret_name: secretName, secret_key: secretKey }, position) => ({ id: randomUUID(), ...ofDeployment, name, secretName, secretKey, position }));
    if (rows.length > 0) await tx.insertMany(SecretReferenceSchema, rows as never[]);
    written.references = rows.map(({ name, secretName, secretKey }) => ({ deployment_id: deploymentId, name, secret_name: secretName, secret_key: secretKey }));
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
