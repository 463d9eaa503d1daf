import { preparingPool } from './prepared-statements.ts';
import { Kysely, PostgresDialect, type ColumnType, type Generated, type Transaction } from 'kysely';
import type pg from 'pg';
import { routedPool, type ReadPools } from '@cairn/platform';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export type ReadModelTables = {
  funding_agencies: {
    id: string;
    name: string;
    abbreviation: string;
    url: string;
    catalog_id: string;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  users: {
    id: string;
    email: string;
    name: string;
    is_active: boolean;
    is_system_admin: boolean;
    created_at: Timestamp;
    last_login: Timestamp | null;
  };
  organizations: { id: string; name: string; country: string | null; created_at: Timestamp };
  organization_memberships: { organization_id: string; user_id: string; role: string; created_at: Timestamp };
  groups: {
    id: string;
    organization_id: string;
    name: string;
    description: string;
    type: 'members' | 'custom';
    member_count: number;
    /** A name given by hand (migration 0021): a members group's no longer follows its organization's. */
    name_given: ColumnType<boolean, boolean | undefined, boolean>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  group_members: { group_id: string; user_id: string; organization_id: string; membership_id: string; added_at: Timestamp };
  projects: {
    id: string;
    organization_id: string;
    owner_id: string;
    name: string;
    description: string;
    root_collection_id: string;
    member_count: ColumnType<number, number | undefined, number>;
    geobound_enabled: boolean;
    geobound_basis: string;
    geobound_allowed_countries: string[];
    geobound_allowed_country_set: string | null;
    geobound_denied_country_set: string | null;
    geobound_block_vpn: boolean;
    geobound_fail_closed: boolean;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  project_members: { project_id: string; user_id: string; role: string; created_at: Timestamp; updated_at: Timestamp };
  project_stars: { user_id: string; project_id: string; created_at: Timestamp };
  country_sets: { id: string; organization_id: string; name: string; kind: string; countries: string[]; created_at: Timestamp; updated_at: Timestamp };
  collections: {
    id: string;
    title: string;
    description: string;
    alias: string;
    tags: string[];
    type: string[];
    license: string;
    parent_id: string | null;
    parent_ids: string[];
    owner_type: string;
    owner_user_id: string | null;
    owner_project_id: string | null;
    is_root: boolean;
    preferred_repository_id: string | null;
    provenance_token: string | null;
    owner_grants: ColumnType<Record<string, number>, Record<string, number> | undefined, Record<string, number>>;
    entry_grants: ColumnType<Record<string, number>, Record<string, number> | undefined, Record<string, number>>;
    inherited_grants: ColumnType<Record<string, number>, Record<string, number> | undefined, Record<string, number>>;
    revision: ColumnType<number, number | undefined, number>;
    /** Generated (migration 0014). */
    readers: ColumnType<string[], never, never>;
    asset_readers: ColumnType<string[], never, never>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  collection_permissions: { collection_id: string; subject_type: string; subject_key: string; flags: number };
  /** A collection's readers as postings, walked per principal in the listing's order (migration 0045). */
  collection_reader_order: { collection_id: string; principal: string; created_at: Timestamp };
  collection_facts_version: { singleton: ColumnType<boolean, boolean | undefined, boolean>; version: string };
  assets: {
    id: string;
    title: string;
    alias: string;
    description: string;
    record_type: string;
    tags: string[];
    metadata: ColumnType<unknown, unknown, unknown>;
    /** Its metadata's terms (metadata-leaves.ts) for its stars to copy, at most 32; null when more, or none known (migration 0053). */
    metadata_terms: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
    owner_type: string;
    owner_id: string;
    collection_ids: ColumnType<string[], string[] | undefined, string[]>;
    is_locked: ColumnType<boolean, boolean | undefined, boolean>;
    locked_by: ColumnType<string | null, string | null | undefined, string | null>;
    locked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
    lock_reason: ColumnType<string, string | undefined, string>;
    is_migrating: ColumnType<boolean, boolean | undefined, boolean>;
    owner_grants: ColumnType<Record<string, number>, Record<string, number>, Record<string, number>>;
    entry_grants: ColumnType<Record<string, number>, Record<string, number> | undefined, Record<string, number>>;
    /** Generated from the grants (migration 0011). */
    readers: ColumnType<string[], never, never>;
    /** Generated: the JSON every caller sees alike, without its closing brace (migration 0030). */
    doc: ColumnType<string, never, never>;
    created_by: string | null;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  /** The assets of each collection with their sort keys (migration 0018). */
  collection_assets: { collection_id: string; asset_id: string; created_at: Timestamp; updated_at: Timestamp; title: string; creator: string };
  asset_permissions: { asset_id: string; subject_type: string; subject_key: string; flags: number };
  asset_stars: { user_id: string; asset_id: string; asset_created_at: Timestamp; starred_at: Timestamp; search_text: string | null; record_type: string | null; tags: string[] | null; record_type_hash: ColumnType<number | null, never, never>; tag_hashes: ColumnType<number[] | null, never, never>; owner_id: string | null; metadata_terms: string[] | null };
  /** Each asset's tags in the listing's order (migration 0032). */
  asset_tag_order: { tag: string; created_at: Timestamp; asset_id: string; record_type: string; tag_hashes: number[] };
  /** Each asset's metadata paths and scalar values in the listing's order (migration 0033). */
  asset_metadata_order: { term: string; created_at: Timestamp; asset_id: string; record_type: string; tag_hashes: number[] };
  asset_metadata_numbers: { path: string; value: string; created_at: Timestamp; asset_id: string; record_type: string };
  asset_notes: { id: string; asset_id: string; author_id: string; content: string; created_at: Timestamp; updated_at: Timestamp };
  asset_markdown_notes: { asset_id: string; author_id: string; content: string; created_at: Timestamp; updated_at: Timestamp };
  asset_relationships: { id: string; from_asset_id: string; to_asset_id: string; relationship_type: string; created_by: string | null; created_at: Timestamp };
  repositories: { id: string; name: string; kind: string; config: ColumnType<unknown, unknown, unknown>; created_at: Timestamp };
  allocations: {
    id: string;
    owner_type: string;
    owner_id: string;
    repository_id: string;
    /** bigint: pg returns text; the readers cast. */
    limit_bytes: ColumnType<string, number | string, number | string>;
    used_bytes: ColumnType<string, number | string | undefined, number | string>;
    content_count: ColumnType<number, number | undefined, number>;
    /** Held for open direct uploads (migration 0023). */
    reserved_bytes: ColumnType<string, number | string | undefined, number | string>;
    is_default: ColumnType<boolean, boolean | undefined, boolean>;
    version: number;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  asset_contents: {
    id: string;
    asset_id: string;
    repository_id: string;
    allocation_id: string;
    key: string;
    filename: string;
    size: ColumnType<string, number | string, number | string>;
    sha256: string;
    content_type: string;
    origin: string;
    metadata: ColumnType<unknown, unknown, unknown>;
    metadata_status: string;
    metadata_error: string | null;
    metadata_extracted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  asset_migrations: {
    id: string;
    asset_id: string;
    source_repository_id: string | null;
    target_repository_id: string;
    status: string;
    attempts: ColumnType<number, number | undefined, number>;
    error: string | null;
    moved_content: number | null;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  content_uploads: {
    id: string;
    asset_id: string;
    repository_id: string;
    allocation_id: string;
    key: string;
    filename: string;
    content_type: string;
    size: ColumnType<string, number | string, number | string>;
    sha256: string | null;
    part_size: ColumnType<string, number | string, number | string>;
    part_count: number;
    storage_upload_id: string | null;
    status: string;
    end_reason: string | null;
    expires_at: Timestamp;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  job_outbox: {
    id: string;
    name: string;
    payload: ColumnType<unknown, unknown, unknown>;
    subject_id: string;
    created_at: Timestamp;
    relayed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
    attempts: ColumnType<number, number | undefined, number>;
    run_after: ColumnType<Date, Date | string | undefined, Date | string>;
    lease_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
    last_error: string | null;
  };
  webhooks: {
    id: string;
    owner_id: string;
    url: string;
    collection_id: string | null;
    asset_id: string | null;
    kinds: string[];
    sealed_secret: string;
    start_after: string;
    status: string;
    paused_reason: string | null;
    paused_at: Timestamp | null;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  webhook_progress: {
    webhook_id: string;
    last_position: string;
    consecutive_failures: ColumnType<number, number | undefined, number>;
    runs: ColumnType<string, string | number | undefined, string | number>;
    next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
    last_error: string | null;
    updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  };
  webhook_deliveries: {
    id: string;
    webhook_id: string;
    position: string;
    change_kind: string;
    body: string;
    attempt: number;
    replay_of: string | null;
    outcome: string;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
    attempted_at: Timestamp;
  };
  projection_rebuilds: { name: string; version: number; major: string; minor: string; applied: string; replayed: string; updated_at: Timestamp; migrations_seen: string | null };
  projection_checkpoints: {
    name: string;
    version: number;
    major: string;
    minor: string;
    status: 'running' | 'failed' | 'rebuilding' | 'inline';
    error: string | null;
    failed_event_id: string | null;
    events_applied: ColumnType<string, string | number, string | number>;
    updated_at: Generated<Date>;
  };
};

export type ReadDb = Kysely<ReadModelTables>;
export type ReadTrx = Transaction<ReadModelTables>;

const pools = new WeakMap<ReadDb, { pool: pg.Pool; kind: keyof ReadPools }>();

/** `kind`: which of a standby's pools this database's reads take when a request reads from one (docs/consistency.md, "Standbys"). */
export function createReadDb(pool: pg.Pool, kind: keyof ReadPools = 'plain'): ReadDb {
  const db = new Kysely<ReadModelTables>({ dialect: new PostgresDialect({ pool: preparingPool(pool, kind) }) });
  pools.set(db, { pool, kind });
  return db;
}

/** The pool under a read database made by createReadDb (the current request's server): for what Kysely cannot send, several statements in one round trip. */
export function poolOf(db: ReadDb): pg.Pool | undefined {
  const entry = pools.get(db);
  return entry && routedPool(entry.kind, entry.pool);
}
