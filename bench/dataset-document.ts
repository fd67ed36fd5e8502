// The benchmark dataset (dataset.ts) as one import document, generated as text in chunks: the importer
// streams it as it would a file, and a file of any size can be written from it without holding it whole.
import { baseDocument, BENCH_TENANTS, deploymentsOf, deploymentsOfTenant, type DatasetSize } from './dataset.ts';

const CHUNK = 1000;

export async function* datasetDocument(size: DatasetSize): AsyncGenerator<string> {
  const { perTenant: _perTenant, deployments: _none, ...base } = baseDocument(size);
  // The base document's lists, then "deployments" opened by hand and filled a thousand at a time.
  yield `${JSON.stringify(base).slice(0, -1)},"deployments":[`;
  let first = true;
  for (let t = 0; t < BENCH_TENANTS; t++) {
    const count = deploymentsOfTenant(t, size);
    for (let from = 0; from < count; from += CHUNK) {
      const text = deploymentsOf(t, from, Math.min(count, from + CHUNK), size).map((d) => JSON.stringify(d)).join(',');
      yield first ? text : `,${text}`;
      first = false;
    }
  }
  yield ']}';
}
