// The one error an import document can cause: it names the first offending path of the document
// (`deployments[3].source_config.resource_spec.cpu`) and nothing is written.
export class ImportError extends Error {
  override name = 'ImportError';
  readonly path: string;
  readonly problem: string;
  constructor(path: string, problem: string) {
    super(path ? `${path}: ${problem}` : problem);
    this.path = path;
    this.problem = problem;
  }
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, '');
}
