// The request bodies of POST and PATCH /v2/listeners, as the original's pydantic models declare them
// (shared/spec/original-listeners.md): validated by the REST door before its handler runs, every problem at
// once, and by the listener mutations (their inputs as these bodies); published as OpenAPI components, and
// what the listener writer takes. `compute_type` is a Literal: a wrong value is `literal_error`.
import { componentSchemasOf, listOf, model, nested, oneOf, optional, required, string, type ModelValue } from '../common/request-model.ts';
import { validateModel } from '../common/request-model-validation.ts';
import { LISTENER_COMPUTE_TYPES } from './listener-compute-types.ts';

export const ListenerComputeConfig = model('ListenerComputeConfig', {
  k8s_namespaces: optional(listOf(string), 'A list of Kubernetes namespaces to which the listener is configured for. Only applicable for `k8s` compute type.'),
}, { description: 'Fields for a listener that are specific to `compute_type`. All fields are nullable, but are validated based on `compute_type`.' });

export const ListenerCreateRequest = model('ListenerCreateRequest', {
  version: optional(string, 'The version of the listener.'),
  compute_type: required(oneOf(LISTENER_COMPUTE_TYPES), 'This cannot be changed once the listener is created.'),
  compute_id: required(string, 'User assigned unique ID of the compute infrastructure (the Kubernetes cluster name, say). This cannot be changed once the listener is created.'),
  compute_config: required(nested(ListenerComputeConfig)),
}, { description: 'A listener must have a unique combination of tenant and `compute_id`.' });

export const ListenerPatchRequest = model('ListenerPatchRequest', {
  version: optional(string, 'The version of the listener; null clears it.'),
  compute_config: optional(nested(ListenerComputeConfig), 'Replaces the whole compute_config; null or absent keeps it.'),
}, { description: 'Request body for patching a listener.' });

export const Heartbeat = model('Heartbeat', {
  version: optional(string, 'The data plane\'s version: becomes the listener\'s; absent or null keeps it.'),
}, { description: 'A listener\'s data plane is alive.' });

export type ListenerCreateBody = ModelValue<typeof ListenerCreateRequest>;
export type ListenerPatchBody = ModelValue<typeof ListenerPatchRequest>;

export const checkListenerCreate = (json: unknown) => validateModel(ListenerCreateRequest, json);
export const checkListenerPatch = (json: unknown) => validateModel(ListenerPatchRequest, json);
export const checkHeartbeat = (json: unknown) => validateModel(Heartbeat, json);

/** JSON Schemas of the bodies and the models inside them, by OpenAPI component name. */
export function listenerRequestSchemas(): Record<string, Record<string, unknown>> {
  return componentSchemasOf([ListenerCreateRequest, ListenerPatchRequest, Heartbeat]);
}
