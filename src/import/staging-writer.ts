// Fills the staging tables (staging-tables.ts) with the document's records, in batches, with COPY: one
// statement per table and batch instead of one per row, then hands each batch of deployments to
// import-batches.ts. While PostgreSQL takes in and writes one batch, the next one is read, checked and
// encrypted, so the two processes work at the same time; at most two batches are held in memory.
//
// Secrets: each value is sealed under the current key, bound to its deployment and name. A stored secret that
// already holds the value under the current key is staged with a null ciphertext ("keep the stored one"), so a
// re-import rewrites no ciphertext; to know, each batch reads the stored secrets of its deployments (in the
// deployment's tenant only) and opens those under the current key.
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SecretCipher } from '../modules/secrets/secret-cipher.ts';
import { CopyText } from './copy-text.ts';
import { deploymentRows, integrationRows, tagRows, tenantRow, type StagedSecret } from './staged-rows.ts';
import { columnsOf, type StagingTable } from './staging-tables.ts';
import type { ValidRecord } from './validate-record.ts';
import type { ImportBatches } from './import-batches.ts';

/** Rows held before a batch is sent (a benchmark deployment makes about 12). */
const BATCH_ROWS = 20_000;

interface StoredSecret {
  deployment_id: string;
  tenant_id: string;
  name: string;
  value_ciphertext: Buffer;
}

const TENANCY: readonly StagedTable[] = ['import_tenant', 'import_tag', 'import_tag_value', 'import_integration', 'import_repository'];

const STAGED_TABLES = [
  'import_tenant', 'import_tag', 'import_tag_value', 'import_integration', 'import_repository', 'import_deployment',
  'import_secret', 'import_secret_reference', 'import_tag_link', 'import_revision',
] as const satisfies StagingTable[];
type StagedTable = (typeof STAGED_TABLES)[number];

export class StagingWriter {
  readonly #buffers = Object.fromEntries(STAGED_TABLES.map((table) => [table, new CopyText(table)])) as { [T in StagedTable]: CopyText<T> };
  #secrets: StagedSecret[] = [];
  #section: ValidRecord['section'] | undefined;
  /** The COPY statements of the batch PostgreSQL is taking in. */
  #sending: Promise<unknown> = Promise.resolve();

  readonly #client: pg.ClientBase;
  readonly #cipher: SecretCipher;
  readonly #batches: ImportBatches;
  constructor(client: pg.ClientBase, cipher: SecretCipher, batches: ImportBatches) {
    this.#client = client;
    this.#cipher = cipher;
    this.#batches = batches;
  }

  /** Stages a checked record; sends a batch when enough rows are held, or when the list of deployments ends. */
  async add(record: ValidRecord): Promise<void> {
    if (this.#section === 'deployments' && record.section !== 'deployments') await this.flush();
    this.#section = record.section;
    const b = this.#buffers;
    switch (record.section) {
      case 'tenants':
        b.import_tenant.add(tenantRow(record.value, record.index));
        break;
      case 'tags': {
        const { tag, values } = tagRows(record.value, record.index);
        b.import_tag.add(tag);
        for (const value of values) b.import_tag_value.add(value);
        break;
      }
      case 'integrations': {
        const { integration, repositories } = integrationRows(record.value, record.index);
        b.import_integration.add(integration);
        for (const repository of repositories) b.import_repository.add(repository);
        break;
      }
      case 'deployments': {
        const rows = deploymentRows(record.value, record.index);
        b.import_deployment.add(rows.deployment);
        for (const row of rows.secretReferences) b.import_secret_reference.add(row);
        for (const row of rows.tagLinks) b.import_tag_link.add(row);
        for (const row of rows.revisions) b.import_revision.add(row);
        this.#secrets.push(...rows.secrets);
        break;
      }
    }
    if (this.#heldRows() >= BATCH_ROWS) await this.flush();
  }

  /** Sends what is held and waits until PostgreSQL has taken in every batch. */
  async finish(): Promise<void> {
    await this.flush();
    await this.#sending;
  }

  async flush(): Promise<void> {
    const sealed = this.#seal(this.#secrets);
    const secrets = this.#secrets;
    this.#secrets = [];
    const data = STAGED_TABLES.filter((table) => table !== 'import_secret').map((table) => [table, this.#buffers[table].take()] as const);
    // The connection serves one statement at a time: the previous batch must be in before the stored secrets are read.
    await this.#sending;
    const kept = await this.#upToDate(secrets);
    const secretRows = new CopyText('import_secret');
    secrets.forEach((secret, i) => {
      const keep = kept.has(`${secret.deployment_id}/${secret.name}`);
      secretRows.add({ ...secret, value_ciphertext: keep ? null : sealed[i]!.valueCiphertext, key_fingerprint: keep ? null : sealed[i]!.keyFingerprint });
    });
    const batch = [...data, ['import_secret', secretRows.take()] as const].filter(([, text]) => text.length > 0);
    const tenancy = batch.some(([table]) => TENANCY.includes(table));
    const deployments = batch.some(([table]) => table === 'import_deployment');
    // Not awaited: the next batch is prepared while PostgreSQL takes this one in. One statement at a time (pg
    // queues nothing on a busy connection). A failure is thrown by the next flush or finish; until then it must
    // not count as unhandled.
    this.#sending = (async () => {
      for (const [table, text] of batch) await this.#copy(table, text);
      if (tenancy) this.#batches.tenancyStaged();
      if (deployments) await this.#batches.deploymentBatch();
    })();
    this.#sending.catch(() => {});
  }

  /** Waits for the batch in flight, whatever its outcome: the connection is free afterwards (for a rollback). */
  async settle(): Promise<void> {
    await this.#sending.catch(() => {});
  }

  #heldRows(): number {
    let rows = this.#secrets.length;
    for (const table of STAGED_TABLES) rows += this.#buffers[table].rowCount;
    return rows;
  }

  #seal(secrets: StagedSecret[]) {
    return secrets.map(({ deployment_id: deploymentId, name, value }) => this.#cipher.seal(value, { deploymentId, name }));
  }

  /** `deployment/name` of the batch's secrets whose stored row holds the same value under the current key. */
  async #upToDate(secrets: StagedSecret[]): Promise<Set<string>> {
    const kept = new Set<string>();
    if (secrets.length === 0) return kept;
    const tenants = new Map(secrets.map((s) => [s.deployment_id, s.tenant_id]));
    const values = new Map(secrets.map((s) => [`${s.deployment_id}/${s.name}`, s.value]));
    // Hand-written: reads the stored secrets of many deployments in one statement (an em.find would load
    // entities; the import runs outside the ORM's unit of work, see importer.ts). A stored secret of another
    // tenant is never opened: that deployment is refused by the checks.
    const { rows } = await this.#client.query<StoredSecret>(
      // One index lookup per deployment (OFFSET 0 keeps the planner from turning it into a scan of every secret
      // under the current key, which it did).
      `select s.deployment_id::text, s.tenant_id::text, s.name, s.value_ciphertext
       from unnest($1::uuid[]) as d(id) cross join lateral (select * from secret s where s.deployment_id = d.id offset 0) s
       where s.key_fingerprint = $2`,
      [[...tenants.keys()], this.#cipher.fingerprint],
    );
    for (const row of rows) {
      const key = `${row.deployment_id}/${row.name}`;
      const value = values.get(key);
      if (value !== undefined && tenants.get(row.deployment_id) === row.tenant_id && this.#opens(row, value)) kept.add(key);
    }
    return kept;
  }

  #opens(row: StoredSecret, value: string): boolean {
    try {
      return this.#cipher.decrypt(row.value_ciphertext, { deploymentId: row.deployment_id, name: row.name }, this.#cipher.fingerprint) === value;
    } catch {
      return false; // unreadable: replaced by the new ciphertext
    }
  }

  async #copy(table: StagingTable, text: string): Promise<void> {
    // Hand-written: COPY is not a statement the ORM builds; it fills a temporary table of this transaction.
    const stream = this.#client.query(copyFrom(`copy "${table}" (${columnsOf(table).map((c) => `"${c}"`).join(', ')}) from stdin`));
    stream.end(text);
    await finished(stream);
  }
}
