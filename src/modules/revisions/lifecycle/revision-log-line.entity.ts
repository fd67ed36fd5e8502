import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../../common/base.entity.ts';
import { RevisionSchema } from '../revision.entity.ts';

export const LOG_PHASES = ['build', 'deploy', 'runtime'] as const;
export type LogPhase = (typeof LOG_PHASES)[number];

/** The phases whose lines a revision takes while it is in progress (and counts against its cap); `runtime` lines come once it is DEPLOYED. */
export const PROGRESS_LOG_PHASES = ['build', 'deploy'] as const;

// One line of a revision's build, deploy (rollout) or runtime log, as a data plane appended it. Lines are numbered
// from 0 per revision and phase by the data plane, so that an append retried after a timeout stores nothing twice;
// runtime lines are kept for the newest MAX_RUNTIME_LOG_LINES only (data-plane-writer.ts).
export const RevisionLogLineSchema = defineEntity({
  name: 'RevisionLogLine',
  extends: TenantOwnedSchema,
  uniques: [{ properties: ['revision', 'phase', 'line'] }],
  properties: {
    revision: () => p.manyToOne(RevisionSchema).ref().deleteRule('cascade'),
    phase: p.enum([...LOG_PHASES]).$type<LogPhase>(),
    line: p.integer(),
    message: p.text(),
    level: p.text().nullable(),
    loggedAt: p.datetime(),
  },
});

export type RevisionLogLine = InferEntity<typeof RevisionLogLineSchema>;
