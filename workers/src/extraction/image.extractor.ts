import exifr from 'exifr';
import { imageSizeFromFile } from 'image-size/fromFile';
import { compact, jsonObject, type JsonValue } from './json-values.ts';

// EXIF from the TIFF, EXIF and GPS blocks only: maker notes, thumbnails, XMP, ICC and IPTC
// are large, vendor-specific or binary. exifr reads a bounded number of chunks of the file.
const exifOptions = {
  tiff: true,
  exif: true,
  gps: true,
  ifd1: false,
  interop: false,
  makerNote: false,
  userComment: false,
  xmp: false,
  icc: false,
  iptc: false,
  jfif: false,
  ihdr: false,
  translateKeys: true,
  translateValues: true,
  reviveValues: true,
  sanitize: true,
  mergeOutput: true,
};

/**
 * `{ width, height, orientation?, exif? }`. The dimensions come from the image header
 * (image-size reads at most 512 KiB); EXIF is optional, so a file whose EXIF block is
 * missing or unreadable still gives its dimensions.
 */
export async function extractImage(filePath: string): Promise<Record<string, JsonValue>> {
  const size = await imageSizeFromFile(filePath);
  const exif = await readExif(filePath);
  return compact({
    width: size.width,
    height: size.height,
    orientation: size.orientation,
    frame_count: size.images && size.images.length > 1 ? size.images.length : undefined,
    exif: exif && Object.keys(exif).length > 0 ? exif : undefined,
  });
}

async function readExif(filePath: string): Promise<Record<string, JsonValue> | undefined> {
  let tags: unknown;
  try {
    tags = await exifr.parse(filePath, exifOptions);
  } catch {
    // exifr throws for formats it does not know and for broken EXIF blocks; neither makes the image unreadable.
    return undefined;
  }
  if (typeof tags !== 'object' || tags === null) return undefined;
  return jsonObject(Object.entries(tags).map(([key, value]): [string, unknown] => [key, value instanceof Date ? exifDateTime(value) : value]));
}

/**
 * EXIF date-times carry no zone, and exifr revives them as local-time dates: their local
 * fields are the ones written in the file, given back as an ISO 8601 local date-time
 * (`2024-05-06T07:08:09`) rather than shifted to UTC by the server's zone.
 */
function exifDateTime(date: Date): string | undefined {
  if (Number.isNaN(date.getTime())) return undefined;
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  const day = `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
