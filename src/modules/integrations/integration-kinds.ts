// The kinds of integration, apart from the entity: the import's preparation thread checks documents against
// them and loads no ORM (importing the entity file took 270 of the thread's 310 ms to start).
export const INTEGRATION_KINDS = ['codehost', 'managed'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];
