import { finished } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { cleanString, type JsonValue } from './json-values.ts';
import { scanText } from './text-scan.ts';

export type TableFormat = 'csv' | 'tsv';

const maxColumnsListed = 1000;
const maxColumnNameLength = 256;
// One record may not grow past this many bytes: an unclosed quote would otherwise gather
// the rest of the file into one field.
const maxRecordBytes = 16 * 1024 * 1024;

/**
 * `{ format, encoding, columns, column_count, row_count }` of a CSV or TSV file, parsed as
 * a stream: records are counted as the parser finds them and never held, so quoted fields
 * with line breaks count once. The first record is the header; blank lines are no rows.
 * Beyond `maxBytes` the parser is not ended, so a record cut at the limit is not counted,
 * and `truncated` is true: the count is then a lower bound (the parser also holds back a
 * record that ends within a few bytes of the limit, waiting for what follows it).
 */
export async function extractTable(
  filePath: string,
  sizeBytes: number,
  maxBytes: number,
  format: TableFormat,
  onProgress: (partial: Record<string, JsonValue>) => void,
): Promise<Record<string, JsonValue>> {
  let header: string[] | undefined;
  let rows = 0;
  const parser = parse({
    // Quotes follow RFC 4180 in both formats: spreadsheets quote TSV fields that hold tabs or line breaks.
    delimiter: format === 'csv' ? ',' : '\t',
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: maxRecordBytes,
    on_record: (record: string[]) => {
      if (header) rows += 1;
      else header = record;
      return null;
    },
  });
  // Errors are read from `parser.errored` after each write; the listener only keeps the
  // event from being thrown again as an uncaught one.
  parser.on('error', () => undefined);
  parser.resume();
  const section = (): Record<string, JsonValue> => ({ format, ...describeHeader(header), row_count: rows });

  let scan: Awaited<ReturnType<typeof scanText>>;
  try {
    scan = await scanText(filePath, sizeBytes, maxBytes, (text) => {
      parser.write(text);
      if (parser.errored) throw parser.errored;
    });
    if (scan.encoding === 'binary') throw new Error(`the ${format} file is not text`);
    if (!scan.truncated) {
      parser.end();
      await finished(parser);
    }
  } catch (error) {
    onProgress(section());
    throw error;
  } finally {
    parser.destroy();
  }
  return { ...section(), encoding: scan.encoding, ...(scan.truncated ? { truncated: true, bytes_read: scan.bytesRead } : {}) };
}

function describeHeader(header: string[] | undefined): Record<string, JsonValue> {
  if (!header) return { columns: [], column_count: 0 };
  const columns = header.slice(0, maxColumnsListed).map((name) => cleanString(name, maxColumnNameLength) ?? '');
  return { columns, column_count: header.length, ...(header.length > maxColumnsListed ? { columns_truncated: true } : {}) };
}
