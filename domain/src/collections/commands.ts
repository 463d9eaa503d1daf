import type { CollectionId } from './events.ts';

/**
 * Issued only as the consequence of a project decision (its creation), which already
 * checked who may act: this command carries no authority of its own.
 */
export type CreateRootCollection = {
  readonly type: 'CreateRootCollection';
  readonly id: CollectionId;
  readonly projectId: string;
  readonly title: string;
};

/** Issued only when the owning project is deleted. */
export type DeleteRootCollection = {
  readonly type: 'DeleteRootCollection';
  readonly id: CollectionId;
  readonly projectId: string;
};

export type CollectionCommand = CreateRootCollection | DeleteRootCollection;
