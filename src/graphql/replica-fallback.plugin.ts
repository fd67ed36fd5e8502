// A read that fails on a replica because the replica cannot be reached (it stopped, or its connections broke)
// is run again on the primary, at once and once, so that a replica going down costs users nothing; the
// replica is taken out of rotation until its probe finds it well (db/read-replicas.ts). The operation runner
// calls the step itself; the plugin is Yoga's side of it, for what the runner declines.
import type { Plugin } from 'graphql-yoga';
import type { ExecutionResult } from 'graphql';
import { isDatabaseUnavailable } from '../db/connection-loss.ts';
import type { ReadReplicas } from '../db/read-replicas.ts';
import { readFromPrimary, type GraphQLContext } from './context.ts';

const failedOnDatabase = (result: ExecutionResult) => result.errors?.some((error) => isDatabaseUnavailable(error)) ?? false;

/**
 * `execute`'s result, or, where it failed on an unreachable replica (in its result's errors, or thrown: a read's
 * data version is read before execution, run-operation.ts), its result run again on the primary.
 */
export async function withReplicaFallback(replicas: ReadReplicas, ctx: GraphQLContext, execute: () => ExecutionResult | Promise<ExecutionResult>): Promise<ExecutionResult> {
  let result: ExecutionResult;
  try {
    result = await execute();
  } catch (error) {
    if (ctx.replica === undefined || !isDatabaseUnavailable(error)) throw error;
    return againOnPrimary(replicas, ctx, execute);
  }
  if (ctx.replica === undefined || !failedOnDatabase(result)) return result;
  return againOnPrimary(replicas, ctx, execute);
}

function againOnPrimary(replicas: ReadReplicas, ctx: GraphQLContext, execute: () => ExecutionResult | Promise<ExecutionResult>) {
  replicas.markUnreachable(ctx.replica!);
  readFromPrimary(ctx);
  return execute();
}

export function useReplicaFallback(replicas: ReadReplicas): Plugin<GraphQLContext> {
  return {
    onExecute({ setExecuteFn, executeFn }) {
      setExecuteFn((args) => withReplicaFallback(replicas, args.contextValue as GraphQLContext, () => executeFn(args) as Promise<ExecutionResult>));
    },
  };
}
