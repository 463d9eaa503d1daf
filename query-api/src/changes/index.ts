export { readChanges, readFeedLog, judgeableBatch, defaultScanLimit, type ChangeCaller, type ChangeFeedDeps, type ChangesPage, type ReadChangesInput } from './read-changes.ts';
export { deliverChanges, flagsOf, type ChangeFilters, type ChangeReader } from './deliver-changes.ts';
export { changeCandidate, changeEventTypes, type ChangeCandidate, type ChangeGate } from './change-candidates.ts';
export { batchAccess, type BatchAccess } from './batch-access.ts';
export { ChangeHub, type ChangeHubDeps } from './change-hub.ts';
