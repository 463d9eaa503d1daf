import { createHash } from 'node:crypto';

const names = new Map<string, string>();

/**
 * The name a statement is prepared under: made from its text, so the same in every process
 * and on every connection, and two texts never share one.
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `cairn_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}
