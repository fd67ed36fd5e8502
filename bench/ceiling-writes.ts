// The write ceilings (bench/ceiling.ts serves them): the rows the service writes for the CLI's create and PATCH,
// written with nothing but `pg`, one transaction each, its statements as few as the work allows. Secret values
// are sealed as the service seals them (AES-256-GCM bound to the deployment and name, the service's key and
// layout), before the transaction opens. No validation, no rules, no idempotency, no read of the record after.
//   POST  /v2/deployments        the name's lock and check, the deployment, its secrets (one insert)
//   PATCH /v2/deployments/{id}   the row locked, its secrets replaced (one delete, one insert), a revision, the update
import { createCipheriv, createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';

interface SecretBody { name: string; value: string }
interface CreateBody { name: string; source: string; source_config: Record<string, unknown>; source_revision_config: Record<string, unknown>; secrets: SecretBody[] }
interface PatchBody { revision_source?: string; source_revision_config?: Record<string, unknown>; secrets?: SecretBody[] }

const REVISION_KEYS = ['repo_ref', 'graph_config_path', 'image_uri', 'source_tarball_path'];
const SOURCE_CONFIG_KEYS = ['integration_id', 'repo_url', 'build_on_push', 'custom_url', 'listener_id', 'listener_config', 'install_command', 'build_command'];
const MASKED = '*****';

export function writeCeilings(pool: pg.Pool, tenantId: string, key: Buffer, fingerprint: string) {
  const keyObject = createSecretKey(key);
  // The service's layout: version 1 | iv (12) | tag (16) | ciphertext; the deployment and name as associated data.
  const seal = (deploymentId: string, { name, value }: SecretBody) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyObject, iv);
    cipher.setAAD(Buffer.from(JSON.stringify([deploymentId, name])));
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(1), iv, cipher.getAuthTag(), ciphertext]);
  };

  async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const result = await work(client);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The secrets' rows in one statement (their values sealed beforehand). */
  function insertSecrets(client: pg.PoolClient, deploymentId: string, secrets: SecretBody[], sealed: Buffer[]) {
    if (secrets.length === 0) return Promise.resolve();
    const values: unknown[] = [tenantId, deploymentId, fingerprint];
    const rows = secrets.map(({ name }, position) => {
      values.push(randomUUID(), name, sealed[position], position);
      const at = values.length - 3;
      return `($${at}, $1, $2, $${at + 1}, $${at + 2}, $${at + 3}, $3)`;
    });
    return client.query(`insert into secret (id, tenant_id, deployment_id, name, value_ciphertext, position, key_fingerprint) values ${rows.join(', ')}`, values);
  }

  const answer = (row: Record<string, unknown>, secrets: SecretBody[]) => JSON.stringify({ ...row, secrets: secrets.map(({ name }) => ({ name, value: MASKED })) });

  async function create(body: CreateBody): Promise<string> {
    const id = randomUUID();
    const sealed = body.secrets.map((secret) => seal(id, secret));
    const sourceConfig = Object.fromEntries(SOURCE_CONFIG_KEYS.map((k) => [k, body.source_config[k] ?? null]));
    const revisionConfig = { ...Object.fromEntries(REVISION_KEYS.map((k) => [k, body.source_revision_config[k] ?? null])), repo_commit_sha: null };
    return inTransaction(async (client) => {
      await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`deployment-name/${tenantId}/${body.name}`]);
      const { rows: [taken] } = await client.query('select exists (select 1 from deployment where tenant_id = $1 and name = $2) as taken', [tenantId, body.name]);
      if (taken.taken) throw new Error(`name ${body.name} taken`);
      const { rows: [row] } = await client.query(
        `insert into deployment (id, tenant_id, name, status, source, deployment_type, source_config, source_revision_config, created_at, updated_at)
         values ($1, $2, $3, 'AWAITING_DATABASE', $4, $5, $6, $7, now(), now()) returning *`,
        [id, tenantId, body.name, body.source, body.source_config.deployment_type ?? 'dev', sourceConfig, revisionConfig],
      );
      await insertSecrets(client, id, body.secrets, sealed);
      return answer(row, body.secrets);
    });
  }

  async function patch(id: string, body: PatchBody): Promise<string> {
    const secrets = body.secrets ?? [];
    const sealed = secrets.map((secret) => seal(id, secret));
    return inTransaction(async (client) => {
      const { rows: [current] } = await client.query('select source, source_revision_config from deployment where tenant_id = $1 and id = $2 for update', [tenantId, id]);
      if (!current) throw new Error(`deployment ${id} not found`);
      if (body.secrets) {
        await client.query('delete from secret where tenant_id = $1 and deployment_id = $2', [tenantId, id]);
        await insertSecrets(client, id, secrets, sealed);
      }
      const changes = Object.fromEntries(REVISION_KEYS.filter((k) => body.source_revision_config?.[k] != null).map((k) => [k, body.source_revision_config![k]]));
      const merged = { ...current.source_revision_config, ...changes, repo_commit_sha: null };
      const revisionId = randomUUID();
      await client.query(
        `insert into revision (id, tenant_id, deployment_id, status, source, source_revision_config, remote_reconciled, created_at, updated_at)
         values ($1, $2, $3, 'QUEUED', $4, $5, false, now(), now())`,
        [revisionId, tenantId, id, body.revision_source ?? current.source, merged],
      );
      const { rows: [row] } = await client.query(
        'update deployment set source_revision_config = $3, latest_revision_id = $4, updated_at = now() where tenant_id = $1 and id = $2 returning *',
        [tenantId, id, merged, revisionId],
      );
      return answer(row, secrets);
    });
  }

  return { create, patch };
}
