// The write refusals a user can fix, as typed results of the mutations (Pothos' errors plugin): a client
// asks for them with `... on DeploymentNameTakenError { ... }` instead of reading top-level errors. What a
// user cannot fix (no write permission, the database down) stays a top-level error.
import { builder } from '../../../graphql/builder.ts';
import { camelCase } from '../../common/legacy-json.ts';
import {
  DeploymentNameTaken, DeploymentNotFound, InvalidValues, PreconditionFailed, RevisionNotFound, WriteRefusal, type ValueProblem,
} from './write-problems.ts';
import { deploymentTagFor } from '../deployment-tag.ts';

export const MutationErrorRef = builder.interfaceRef<WriteRefusal>('MutationError').implement({
  description: 'A write refused for a reason the caller can fix; each implementing type says more.',
  fields: (t) => ({ message: t.exposeString('message', { description: 'What went wrong, in a sentence.' }) }),
});

const ValueProblemRef = builder.objectRef<ValueProblem>('InvalidValue').implement({
  description: 'One invalid value of the input (the REST door answers the same problems as a 422 `detail`).',
  fields: (t) => ({
    path: t.stringList({
      description: 'Where the value is in the input, as field names and list positions (`["secrets", "0", "name"]`).',
      resolve: (problem) => problem.loc.map((part) => (typeof part === 'number' ? String(part) : camelCase(part))),
    }),
    message: t.exposeString('msg', { description: 'What is wrong with it.' }),
    type: t.exposeString('type', { description: 'The kind of problem, as pydantic names it (`greater_than_equal`, `value_error`, …).' }),
    input: t.field({ type: 'JSON', nullable: true, description: 'The value refused, as sent.', resolve: (problem) => problem.input ?? null }),
    context: t.field({ type: 'JSONObject', nullable: true, description: 'The limits it broke, where there are any (`{"ge": 0.1}`).', resolve: (problem) => problem.ctx ?? null }),
    restLocation: t.stringList({
      description: 'Where the value is in the REST body (its snake_case keys), as the 422 `loc` names it after `body`.',
      resolve: (problem) => problem.loc.map(String),
    }),
  }),
});

builder.objectType(InvalidValues, {
  name: 'InvalidInputError',
  interfaces: [MutationErrorRef],
  description: 'Some values of the input break the rules; all of them are listed.',
  fields: (t) => ({ problems: t.field({ type: [ValueProblemRef], description: 'Every invalid value.', resolve: (error) => error.problems }) }),
});

builder.objectType(DeploymentNameTaken, {
  name: 'DeploymentNameTakenError',
  interfaces: [MutationErrorRef],
  description: 'The tenant already has a deployment of that name (names are unique within a tenant).',
  fields: (t) => ({ name: t.exposeString('deploymentName', { description: 'The name asked for.' }) }),
});

builder.objectType(DeploymentNotFound, {
  name: 'DeploymentNotFoundError',
  interfaces: [MutationErrorRef],
  description: 'The tenant has no deployment of that id.',
  fields: (t) => ({ id: t.exposeString('deploymentId', { description: 'The id asked for.' }) }),
});

builder.objectType(RevisionNotFound, {
  name: 'RevisionNotFoundError',
  interfaces: [MutationErrorRef],
  description: 'The deployment has no revision of that id.',
  fields: (t) => ({ id: t.exposeString('revisionId', { description: 'The id asked for.' }) }),
});

builder.objectType(PreconditionFailed, {
  name: 'PreconditionFailedError',
  interfaces: [MutationErrorRef],
  description: 'The deployment changed since the `etag` sent as `ifMatch`: read it again, then decide.',
  fields: (t) => ({
    currentEtag: t.string({
      description: 'The deployment\'s entity tag now.',
      resolve: (error, _args, ctx) => deploymentTagFor(ctx, error.deploymentId, error.currentVersion),
    }),
  }),
});

/** The refusals of a write that changes one existing deployment. */
export const CHANGE_ERRORS = [InvalidValues, DeploymentNotFound, PreconditionFailed];
