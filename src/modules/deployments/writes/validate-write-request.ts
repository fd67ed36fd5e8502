// The two write bodies read as FastAPI reads them (pydantic v2, lax, unknown keys dropped at every level):
// every error at once, located relative to the body (the REST door puts them under 'body', see inBody).
// The rules are request-model-validation.ts's; the models are write-request-schema.ts's. A body that passes
// must also hold only numbers the deployment's record can show: it is answered through the GraphQL types, whose
// Int has 32 bits and whose Float is finite (a REST body may say `"inf"`), so the first number beyond them is
// refused in their words (a GraphQL client's input cannot hold one).
import { GraphQLFloat, GraphQLInt } from 'graphql';
import type { BodyPath, ValidationErrorItem } from '../../common/pydantic-errors.ts';
import type { FieldType, RequestModel } from '../../common/request-model.ts';
import { validateModel } from '../../common/request-model-validation.ts';
import { valueError } from './write-problems.ts';
import { DeploymentCreateRequest, DeploymentPatchRequest, type CreateRequest, type PatchRequest } from './write-request-schema.ts';

export type { CreateRequest, PatchRequest } from './write-request-schema.ts';

export type WriteRequestValidation<Value> =
  | { ok: true; value: Value }
  | { ok: false; errors: Array<ValidationErrorItem<BodyPath>> };

/**
 * A parsed JSON body as a DeploymentCreateRequest. A body that is not an object is one
 * `model_attributes_type` at `[]` (the REST door answers a JSON `null` body `missing` before this).
 */
export const validateCreateRequest = (json: unknown): WriteRequestValidation<CreateRequest> => shown(DeploymentCreateRequest, validateModel(DeploymentCreateRequest, json));

/** A parsed JSON body as a DeploymentPatchRequest: every key optional and nullable; `{}` is valid. */
export const validatePatchRequest = (json: unknown): WriteRequestValidation<PatchRequest> => shown(DeploymentPatchRequest, validateModel(DeploymentPatchRequest, json));

/** A valid body, unless it holds a number the record cannot show (the first one). */
function shown<Value>(model: RequestModel, validated: WriteRequestValidation<Value>): WriteRequestValidation<Value> {
  if (!validated.ok) return validated;
  const problem = numberProblem({ kind: 'model', model }, validated.value, []);
  return problem ? { ok: false, errors: [problem] } : validated;
}

function numberProblem(type: FieldType, value: unknown, loc: BodyPath): ValidationErrorItem<BodyPath> | undefined {
  if (value == null) return undefined;
  switch (type.kind) {
    case 'int':
    case 'float':
      try {
        (type.kind === 'int' ? GraphQLInt : GraphQLFloat).parseValue(value);
        return undefined;
      } catch (error) {
        return valueError(loc, value, (error as Error).message.replace(/\.$/, ''));
      }
    case 'list':
      for (const [index, item] of (value as unknown[]).entries()) {
        const problem = numberProblem(type.items, item, [...loc, index]);
        if (problem) return problem;
      }
      return undefined;
    case 'model':
      for (const [name, field] of Object.entries(type.model.fields)) {
        const problem = numberProblem(field.type, (value as Record<string, unknown>)[name], [...loc, name]);
        if (problem) return problem;
      }
      return undefined;
    default:
      // dicts hold strings (and free-form objects JSON), which GraphQL's JSON holds as they are.
      return undefined;
  }
}
