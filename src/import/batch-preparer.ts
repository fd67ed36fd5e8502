// The part of an import that needs no database: the document is read element by element (document-reader.ts),
// each element checked with its schema (validate-record.ts), turned into staging rows (staged-rows.ts), its
// secrets sealed, and the rows encoded as COPY data (copy-text.ts), a batch at a time. It runs on a thread of
// its own for a large document (preparation-thread.ts), so that the thread which feeds PostgreSQL is never
// busy when PostgreSQL waits for its next statement.
//
// What it hands over is plain data (strings and arrays of strings), which crosses between threads as it is.
import type { SecretCipher } from '../modules/secrets/secret-cipher.ts';
import { CopyText } from './copy-text.ts';
import type { SectionName } from './document.schema.ts';
import { readDocument } from './document-reader.ts';
import { ImportError } from './import-error.ts';
import { stagedDeploymentRows, stagedIntegrationRows, stagedTagRows, stagedTenantRow, type StagedSecret } from './staged-rows.ts';
import { DEPLOYMENT_TABLE_NAMES, TENANCY_TABLE_NAMES, type StagingTable } from './staging-tables.ts';
import { validateRecord, type ValidRecord } from './validate-record.ts';

/** Rows held before a batch is handed over (a benchmark deployment makes about 12). */
const BATCH_ROWS = 20_000;
/**
 * The first batch of deployments is smaller: PostgreSQL has nothing to do until it arrives (a full one takes
 * about 0.4 s to prepare); from the second on, each is prepared while PostgreSQL writes the one before.
 */
const FIRST_BATCH_ROWS = 2_000;

/** Elements read between two progress steps. */
const PROGRESS_EVERY = 1000;

/** Every staging table but the secrets', which go last, on their own (PreparedSecrets). */
type CopiedTable = Exclude<StagingTable, 'import_secret'>;
/** Sent in this order: the tenancy, then the deployments and what they own. */
const COPIED_TABLES: CopiedTable[] = [...TENANCY_TABLE_NAMES, ...DEPLOYMENT_TABLE_NAMES.filter((table) => table !== 'import_secret') as CopiedTable[]];
const TENANCY_TABLES: readonly string[] = TENANCY_TABLE_NAMES;

/** The secrets of a batch: their COPY data for import_secret, and what the staging writer needs to keep stored ones. */
export interface PreparedSecrets {
  /** import_secret's COPY data, a line per secret, every value sealed under the current key. */
  text: string;
  /** Per line of `text`: the secret's deployment, that deployment's tenant, the secret's name and its value. */
  deploymentIds: string[];
  tenantIds: string[];
  names: string[];
  values: string[];
}

export interface PreparedBatch {
  /** COPY data of the batch, by staging table, in the order they are sent; tables without rows are left out. */
  copies: [CopiedTable, string][];
  secrets: PreparedSecrets;
  /** Whether it stages tenancy rows (tenants, tags, integrations), deployments, or both. */
  tenancy: boolean;
  deployments: boolean;
}

/** What preparing a document gives, in document order. */
export type PreparationStep =
  | { batch: PreparedBatch }
  /** Elements read so far, per list (every thousand elements, and once at the end). */
  | { records: Record<SectionName, number> }
  /**
   * An element failed its schema. Every batch before it was handed over, the rows it completes included, so
   * that a problem the database finds in an earlier element is reported first (the first in document order).
   */
  | { invalid: ImportError };

export class BatchPreparer {
  readonly #buffers = Object.fromEntries(COPIED_TABLES.map((table) => [table, new CopyText(table)])) as { [T in CopiedTable]: CopyText<T> };
  #secrets: StagedSecret[] = [];
  #section: ValidRecord['section'] | undefined;
  #batchRows = FIRST_BATCH_ROWS;
  readonly #cipher: SecretCipher;

  constructor(cipher: SecretCipher) {
    this.#cipher = cipher;
  }

  /** Holds a checked record's rows; returns the batches it completes (the list of deployments ending completes one). */
  add(record: ValidRecord): PreparedBatch[] {
    const completed: PreparedBatch[] = [];
    if (this.#section === 'deployments' && record.section !== 'deployments') this.#take(completed);
    this.#section = record.section;
    const b = this.#buffers;
    switch (record.section) {
      case 'tenants':
        b.import_tenant.add(stagedTenantRow(record.value, record.index));
        break;
      case 'tags': {
        const { tag, values } = stagedTagRows(record.value, record.index);
        b.import_tag.add(tag);
        for (const value of values) b.import_tag_value.add(value);
        break;
      }
      case 'integrations': {
        const { integration, repositories } = stagedIntegrationRows(record.value, record.index);
        b.import_integration.add(integration);
        for (const repository of repositories) b.import_repository.add(repository);
        break;
      }
      case 'deployments': {
        const rows = stagedDeploymentRows(record.value, record.index);
        b.import_deployment.add(rows.deployment);
        for (const row of rows.secretReferences) b.import_secret_reference.add(row);
        for (const row of rows.tagLinks) b.import_tag_link.add(row);
        for (const row of rows.revisions) b.import_revision.add(row);
        for (const secret of rows.secrets) this.#secrets.push(secret);
        break;
      }
    }
    if (this.#heldRows() >= this.#batchRows) this.#take(completed);
    return completed;
  }

  /** What is still held, as a last batch (none if nothing is). */
  finish(): PreparedBatch[] {
    const completed: PreparedBatch[] = [];
    this.#take(completed);
    return completed;
  }

  #take(into: PreparedBatch[]): void {
    if (this.#heldRows() === 0) return;
    const copies: [CopiedTable, string][] = [];
    for (const table of COPIED_TABLES) {
      const text = this.#buffers[table].take();
      if (text) copies.push([table, text]);
    }
    const deployments = copies.some(([table]) => table === 'import_deployment');
    into.push({
      copies,
      secrets: this.#sealed(this.#secrets),
      tenancy: copies.some(([table]) => TENANCY_TABLES.includes(table)),
      deployments,
    });
    this.#secrets = [];
    if (deployments) this.#batchRows = BATCH_ROWS;
  }

  #heldRows(): number {
    let rows = this.#secrets.length;
    for (const table of COPIED_TABLES) rows += this.#buffers[table].rowCount;
    return rows;
  }

  #sealed(secrets: StagedSecret[]): PreparedSecrets {
    const text = new CopyText('import_secret');
    for (const secret of secrets) {
      const sealed = this.#cipher.seal(secret.value, { deploymentId: secret.deployment_id, name: secret.name });
      text.add({ ...secret, value_ciphertext: sealed.valueCiphertext, key_fingerprint: sealed.keyFingerprint });
    }
    return {
      text: text.take(),
      deploymentIds: secrets.map((secret) => secret.deployment_id),
      tenantIds: secrets.map((secret) => secret.tenant_id),
      names: secrets.map((secret) => secret.name),
      values: secrets.map((secret) => secret.value),
    };
  }
}

/** Prepares a document: its batches, progress, and a failing element, in document order. A syntax error is thrown. */
export async function* prepareDocument(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, cipher: SecretCipher): AsyncGenerator<PreparationStep> {
  const preparer = new BatchPreparer(cipher);
  const records: Record<SectionName, number> = { tenants: 0, tags: 0, integrations: 0, deployments: 0 };
  let read = 0;
  for await (const record of readDocument(input)) {
    let valid;
    try {
      valid = validateRecord(record);
    } catch (error) {
      if (!(error instanceof ImportError)) throw error;
      for (const batch of preparer.finish()) yield { batch };
      yield { invalid: error };
      return;
    }
    for (const batch of preparer.add(valid)) yield { batch };
    records[record.section]++;
    if (++read % PROGRESS_EVERY === 0) yield { records: { ...records } };
  }
  for (const batch of preparer.finish()) yield { batch };
  yield { records: { ...records } };
}
