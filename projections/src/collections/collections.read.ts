import type { ReadDb } from '../schema.ts';

export type CollectionRow = {
  id: string;
  title: string;
  parent_id: string | null;
  owner_type: string;
  owner_user_id: string | null;
  owner_project_id: string | null;
  is_root: boolean;
  created_at: Date;
  updated_at: Date;
};

/** One collection as stored; visibility rules come with the collections issue. */
export async function findCollectionRow(db: ReadDb, id: string): Promise<CollectionRow | undefined> {
  return db
    .selectFrom('collections')
    .select(['id', 'title', 'parent_id', 'owner_type', 'owner_user_id', 'owner_project_id', 'is_root', 'created_at', 'updated_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}
