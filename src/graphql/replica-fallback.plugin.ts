// A read that fails on a replica because the replica cannot be reached (it stopped, or its connections broke)
// is run again on the primary, at once and once, so that a replica going down costs users nothing; the
// replica is taken out of rotation until its probe finds it well (db/read-replicas.ts). Both doors: REST
// routes run their operations through the same envelop.
import type { Plugin } from 'graphql-yoga';
import type { ExecutionResult } from 'graphql';
import { isDatabaseUnavailable } from '../db/connection-loss.ts';
import type { ReadReplicas } from '../db/read-replicas.ts';
import type { GraphQLContext } from './context.ts';
import { RequestLoaders } from './loaders.ts';

const failedOnDatabase = (result: unknown) =>
  (result as ExecutionResult).errors?.some((error) => isDatabaseUnavailable(error)) ?? false;

export function useReplicaFallback(replicas: ReadReplicas): Plugin<GraphQLContext> {
  return {
    onExecute({ setExecuteFn, executeFn }) {
      setExecuteFn(async (args) => {
        const result = await executeFn(args);
        const ctx = args.contextValue as GraphQLContext;
        if (ctx.replica === undefined || !failedOnDatabase(result)) return result;
        replicas.markUnreachable(ctx.replica);
        ctx.replica = undefined;
        const primary = ctx.primaryEm();
        ctx.em = () => primary;
        ctx.loaders = new RequestLoaders(ctx.em, ctx.principal.mayReadSecrets ? ctx.cipher : null);
        return executeFn(args);
      });
    },
  };
}
