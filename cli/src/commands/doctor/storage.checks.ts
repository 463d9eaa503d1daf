import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { listRepositories } from '@cairn/projections';
import type { Resources } from '../../runtime/resources.ts';
import { fail, messageOf, ok, within, type Check } from './check.ts';

/** Where probes go: outside every asset's prefix, so no content record can ever name one. */
const probePrefix = 'cairn-doctor';

/**
 * Each repository takes a small object, gives it back unchanged and deletes it: what every
 * upload, download and deletion of content needs of it. Progress goes to stderr on a
 * terminal, since repositories far away may take a while each.
 */
export async function repositoryChecks(resources: Resources, timeoutMs: number, progress: (line: string) => void): Promise<Check[]> {
  const repositories = await listRepositories(resources.db);
  if (repositories.length === 0) return [fail('repositories', 'none: content cannot be stored', 'cairn repositories create --name N --kind fs --path DIR (or restart the all-in-one server, which makes one)')];
  const checks: Check[] = [];
  for (const [index, repository] of repositories.entries()) {
    const name = `repository ${repository.name}`;
    progress(`checking ${name} (${index + 1}/${repositories.length})`);
    const fix = repository.kind === 's3' ? 'check the endpoint, the bucket, its policy and CAIRN_S3_ACCESS_KEY_ID / CAIRN_S3_SECRET_ACCESS_KEY (docs/storage.md)' : 'check that the directory exists and the service user may write to it';
    try {
      await within(timeoutMs, probe(resources, repository.id));
      checks.push(ok(name, `${repository.kind}: wrote, read back and deleted a probe object`));
    } catch (error) {
      checks.push(fail(name, `${repository.kind}: ${messageOf(error)}`, fix));
    }
  }
  return checks;
}

async function probe(resources: Resources, repositoryId: string): Promise<void> {
  const store = await resources.stores.forRepository(repositoryId);
  if (!store) throw new Error('its location cannot be read');
  const key = `${probePrefix}/${randomUUID()}`;
  const body = randomBytes(64);
  await store.put(key, Readable.from([body]));
  try {
    const back = await buffer(await store.open(key));
    if (!back.equals(body)) throw new Error('the probe object came back changed');
  } finally {
    await store.remove(key);
  }
  if (await store.inspect(key)) throw new Error('the probe object is still there after its deletion');
}
