/** Any 8-4-4-4-12 hex UUID, as PostgreSQL accepts it (any version or variant, either case). */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const isUuid = (value: string) => UUID_PATTERN.test(value);
