/**
 * The columns of read-model tables that are in a unique index besides the table's key, for
 * planSteps: an insert never moves before what could free such a value. Kept beside the
 * migrations by hand; test/src/projections/unique-columns.int.spec.ts checks it against the
 * database's own indexes.
 */
export const secondaryUniqueColumns: Readonly<Record<string, readonly string[]>> = {
  users: ['email'],
  repositories: ['name'],
};
