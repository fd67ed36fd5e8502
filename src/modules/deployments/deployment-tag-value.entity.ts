// The pivot of deployments and their tag values, as an entity of its own only so that it can declare the index
// below: the primary key leads with the deployment, which serves a page's tag values (by deployment), but the
// tag filter asks the other way round ("which deployments carry one of these values"), and without an index
// leading with the value PostgreSQL reads the whole pivot for it on every filtered page.
import { defineEntity, p } from '@mikro-orm/postgresql';
import { DeploymentSchema } from './deployment.entity.ts';
import { TagValueSchema } from './tag.entity.ts';

export const DeploymentTagValueSchema = defineEntity({
  name: 'DeploymentTagValue',
  tableName: 'deployment_tag_value',
  indexes: [{ properties: ['tagValue', 'deployment'] }],
  properties: {
    deployment: () => p.manyToOne(DeploymentSchema).primary().deleteRule('cascade').updateRule('cascade'),
    tagValue: () => p.manyToOne(TagValueSchema).primary().deleteRule('cascade').updateRule('cascade'),
  },
});
