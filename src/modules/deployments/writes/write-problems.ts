import { pydanticError, type BodyPath, type ValidationErrorItem } from '../../common/pydantic-errors.ts';
// What a write refuses, as the domain says it: each door turns these into its own answers (typed results in
// the GraphQL schema, FastAPI-shaped bodies on the REST door), so the rules live here once.

/**
 * One invalid value, in pydantic v2's terms (the REST door's 422 items are these with `body` in front of
 * `loc`): `loc` is the value's place in the legacy request body (`['source_config', 'repo_url']`).
 */
export type ValueProblem = ValidationErrorItem<BodyPath>;

/** A pydantic `value_error`: what pydantic reports for an error a model's validator raises. */
export const valueError = (loc: BodyPath, input: unknown, error: string): ValueProblem => pydanticError.valueError(loc, input ?? null, error);

/** A read-only key's refusal (GraphQL: FORBIDDEN; REST: 403 with it as `detail`). */
export const READ_ONLY_KEY = 'This API key may not write: issue one with `npm run apikey -- create --write`';

export class WriteRefusal extends Error {
  override name = 'WriteRefusal';
}

/** The request's values break the rules (docs/decisions.md#writes); every problem found, at once. */
export class InvalidValues extends WriteRefusal {
  readonly problems: ValueProblem[];
  constructor(problems: ValueProblem[]) {
    super(problems.length === 1 ? problems[0]!.msg : `${problems.length} values are invalid`);
    this.problems = problems;
  }
}

/** Names are unique within a tenant. */
export class DeploymentNameTaken extends WriteRefusal {
  readonly deploymentName: string;
  constructor(name: string) {
    super(`A deployment named "${name}" already exists.`);
    this.deploymentName = name;
  }
}

/** Unknown, or another tenant's: the two look the same (docs/decisions.md#authentication-and-tenants). */
export class DeploymentNotFound extends WriteRefusal {
  readonly deploymentId: string;
  constructor(id: string) {
    super(`Deployment ID ${id} not found.`);
    this.deploymentId = id;
  }
}

export class RevisionNotFound extends WriteRefusal {
  readonly revisionId: string;
  constructor(id: string) {
    super(`Revision ID ${id} not found.`);
    this.revisionId = id;
  }
}

/** `If-Match` named a version the deployment no longer has: someone else changed it first. */
export class PreconditionFailed extends WriteRefusal {
  readonly deploymentId: string;
  readonly currentVersion: number;
  constructor(id: string, currentVersion: number) {
    super(`Deployment ${id} has changed since the version you sent (If-Match); read it again and retry.`);
    this.deploymentId = id;
    this.currentVersion = currentVersion;
  }
}
