// The two write bodies read as FastAPI reads them (pydantic v2, lax, unknown keys dropped at every level):
// every error at once, located relative to the body (the REST door puts them under 'body', see inBody).
// The rules are request-model-validation.ts's; the models are write-request-schema.ts's.
import type { BodyPath, ValidationErrorItem } from '../../common/pydantic-errors.ts';
import { validateModel } from '../../common/request-model-validation.ts';
import { DeploymentCreateRequest, DeploymentPatchRequest, type CreateRequest, type PatchRequest } from './write-request-schema.ts';

export type { CreateRequest, PatchRequest } from './write-request-schema.ts';

export type WriteRequestValidation<Value> =
  | { ok: true; value: Value }
  | { ok: false; errors: Array<ValidationErrorItem<BodyPath>> };

/**
 * A parsed JSON body as a DeploymentCreateRequest. A body that is not an object is one
 * `model_attributes_type` at `[]` (the REST door answers a JSON `null` body `missing` before this).
 */
export const validateCreateRequest = (json: unknown): WriteRequestValidation<CreateRequest> =>
  validateModel(DeploymentCreateRequest, json);

/** A parsed JSON body as a DeploymentPatchRequest: every key optional and nullable; `{}` is valid. */
export const validatePatchRequest = (json: unknown): WriteRequestValidation<PatchRequest> =>
  validateModel(DeploymentPatchRequest, json);
