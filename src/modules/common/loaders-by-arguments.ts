// Nested lists that take arguments (a filter, a slice, the columns a selection reads) get one DataLoader per
// distinct set of arguments within a request: every parent of a page asking the same thing shares one batch,
// and so one statement.
import DataLoader from 'dataloader';

type Batch<V> = (keys: readonly string[]) => Promise<V[]>;

export class LoadersByArguments<V> {
  private readonly loaders = new Map<string, DataLoader<string, V>>();
  private readonly make: (batch: Batch<V>) => DataLoader<string, V>;

  /** `make`: how a loader is made of its batch function (a subscription chunk's load its keys together). */
  constructor(make: (batch: Batch<V>) => DataLoader<string, V> = (batch) => new DataLoader(batch)) {
    this.make = make;
  }

  /** The request's loader for these arguments (compared as JSON), made with `batch` the first time. */
  for(args: unknown[], batch: Batch<V>): DataLoader<string, V> {
    const key = JSON.stringify(args);
    let loader = this.loaders.get(key);
    if (!loader) this.loaders.set(key, (loader = this.make(batch)));
    return loader;
  }
}
