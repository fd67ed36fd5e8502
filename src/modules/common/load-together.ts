// DataLoaders for the events of a subscription: each event resolves one deployment, one after the other, so a
// plain DataLoader would read each relation once per event. A loader made here loads, with the first key it is
// asked for, the keys of the whole chunk of events (`together`), and keeps their values for the events that
// follow: one statement per relation and chunk, as for a page.
import DataLoader from 'dataloader';

type Batch<V> = (keys: readonly string[]) => Promise<readonly (V | Error)[]>;

export function loaderTogether<V>(together: readonly string[], batch: Batch<V>): DataLoader<string, V> {
  if (together.length === 0) return new DataLoader(batch);
  let waiting = [...new Set(together)];
  const loader: DataLoader<string, V> = new DataLoader(async (keys) => {
    const extra = waiting.filter((key) => !keys.includes(key));
    waiting = [];
    const values = await batch([...keys, ...extra]);
    extra.forEach((key, index) => loader.prime(key, values[keys.length + index]!));
    return values.slice(0, keys.length);
  });
  return loader;
}

/** What a chunk of events will ask for: its deployments, and the integrations and revisions their rows name. */
export interface LoadTogether {
  deploymentIds: readonly string[];
  integrationIds: readonly string[];
  revisionIds: readonly string[];
}

export const NOTHING_TOGETHER: LoadTogether = { deploymentIds: [], integrationIds: [], revisionIds: [] };
