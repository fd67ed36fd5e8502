// Fills the staging tables (staging-tables.ts) with the prepared batches (batch-preparer.ts) with COPY, one
// statement per table and batch instead of one per row, then hands each batch of deployments to
// import-batches.ts. A batch is sent while the next is prepared; the next is sent once PostgreSQL has taken in
// and written the one before (one connection serves one statement at a time).
//
// Secrets come sealed under the current key. A stored secret that already holds the value under the current
// key is staged with a null ciphertext instead ("keep the stored one"), so a re-import rewrites no ciphertext;
// to know, each batch reads the stored secrets of its deployments (in the deployment's tenant only) and opens
// those under the current key.
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SecretCipher } from '../modules/secrets/secret-cipher.ts';
import type { PreparedBatch, PreparedSecrets } from './batch-preparer.ts';
import { columnsOf, type StagingTable } from './staging-tables.ts';
import type { ImportBatches } from './import-batches.ts';

interface StoredSecret {
  deployment_id: string;
  tenant_id: string;
  name: string;
  value_ciphertext: Buffer;
}

/** Where the staged secret's ciphertext and key fingerprint start: its columns from there on are null to keep the stored ones. */
const CIPHERTEXT_COLUMN = columnsOf('import_secret').indexOf('value_ciphertext');
if (columnsOf('import_secret').slice(CIPHERTEXT_COLUMN).join() !== 'value_ciphertext,key_fingerprint') throw new Error('import_secret must end with its ciphertext and key fingerprint');

/** A line of COPY data with its ciphertext and fingerprint null. A value's own tabs are escaped, so the n-th tab ends the n-th column. */
function keepingStored(line: string): string {
  let end = -1;
  for (let column = 0; column < CIPHERTEXT_COLUMN; column++) end = line.indexOf('\t', end + 1);
  return `${line.slice(0, end)}\t\\N\t\\N`;
}

export class StagingWriter {
  /** The statements of the batch PostgreSQL is taking in. */
  #sending: Promise<unknown> = Promise.resolve();

  readonly #client: pg.ClientBase;
  readonly #cipher: SecretCipher;
  readonly #batches: ImportBatches;
  constructor(client: pg.ClientBase, cipher: SecretCipher, batches: ImportBatches) {
    this.#client = client;
    this.#cipher = cipher;
    this.#batches = batches;
  }

  /**
   * Waits until PostgreSQL has taken in the batch before (its failure is thrown here), then sends this one and
   * returns: it is checked and written while the caller goes on.
   */
  async send(batch: PreparedBatch): Promise<void> {
    await this.#sending;
    const secrets = await this.#secretsText(batch.secrets);
    const copies: [StagingTable, string][] = secrets ? [...batch.copies, ['import_secret', secrets]] : batch.copies;
    // Not awaited. One statement at a time (pg queues nothing on a busy connection). A failure is thrown by the
    // next send or finish; until then it must not count as unhandled.
    this.#sending = (async () => {
      for (const [table, text] of copies) await this.#copy(table, text);
      if (batch.tenancy) this.#batches.tenancyStaged();
      if (batch.deployments) await this.#batches.deploymentBatch();
    })();
    this.#sending.catch(() => {});
  }

  /** Waits until PostgreSQL has taken in every batch sent. */
  async finish(): Promise<void> {
    await this.#sending;
  }

  /** Waits for the batch in flight, whatever its outcome: the connection is free afterwards (for a rollback). */
  async settle(): Promise<void> {
    await this.#sending.catch(() => {});
  }

  /** import_secret's COPY data, with a null ciphertext for each secret stored with this value already. */
  async #secretsText(secrets: PreparedSecrets): Promise<string> {
    const kept = await this.#upToDate(secrets);
    if (kept.size === 0) return secrets.text;
    const lines = secrets.text.split('\n');
    for (const i of kept) lines[i] = keepingStored(lines[i]!);
    return lines.join('\n');
  }

  /** Which of the batch's secrets (by index) a stored row holds with the same value under the current key. */
  async #upToDate(secrets: PreparedSecrets): Promise<Set<number>> {
    const kept = new Set<number>();
    if (secrets.names.length === 0) return kept;
    const tenants = new Map(secrets.deploymentIds.map((id, i) => [id, secrets.tenantIds[i]!]));
    const indexes = new Map(secrets.deploymentIds.map((id, i) => [`${id}/${secrets.names[i]}`, i]));
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
      const i = indexes.get(`${row.deployment_id}/${row.name}`);
      if (i !== undefined && tenants.get(row.deployment_id) === row.tenant_id && this.#opens(row, secrets.values[i]!)) kept.add(i);
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
