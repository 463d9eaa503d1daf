import { booleanFromText, falseSpellings, trueSpellings } from '@cairn/platform';
import { z } from 'zod';

/** An optional text field: absent, null and "" all mean empty. */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `Ensure this field has no more than ${max} characters.`)
    .nullish()
    .transform((v) => v ?? '');

// A missing field is "This field is required." for every schema (platform/src/http/validation.ts).
export const requiredText = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'This field may not be blank.')
    .max(max, `Ensure this field has no more than ${max} characters.`);

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const httpUrl = (max: number) =>
  optionalText(max).refine((v) => v === '' || isHttpUrl(v), 'Enter a valid http(s) URL.');

export const dateTime = z.iso.datetime();
export const uuid = z.uuid();

/**
 * A boolean query parameter, spelled as a form field's boolean is (docs/http.md): any
 * other text is 400 naming the parameter, never silently false.
 */
export const queryBoolean = z.codec(
  z.string().refine((v) => booleanFromText(v) !== undefined, `Must be true or false (${trueSpellings.join(', ')} or ${falseSpellings.join(', ')}, any case).`),
  z.boolean(),
  // A codec, so that the OpenAPI document types the parameter as a boolean (issue 25).
  { decode: (text) => booleanFromText(text) === true, encode: String },
);

/** A UUID in a body or a query (400 naming the field otherwise). */
export const uuidInput = z.uuid({ error: 'Must be a UUID.' });

/** A list of short texts (tags, types): each trimmed and 1..itemMax characters, at most countMax of them. */
export const textList = (itemMax: number, countMax: number) =>
  z
    .array(z.string().trim().min(1, 'A value may not be blank.').max(itemMax, `Ensure each value has no more than ${itemMax} characters.`), { error: 'Must be a list of strings.' })
    .max(countMax, `Ensure there are no more than ${countMax} values.`);

/**
 * An integer in a query string: the text is checked, then decoded (and `adjust`ed, e.g.
 * clamped). A codec, so that the OpenAPI document types it as the integer it decodes to.
 */
export const queryInteger = (adjust: (n: number) => number = (n) => n) =>
  z.codec(z.string().regex(/^\s*[+-]?\d{1,12}\s*$/, 'Must be an integer.'), z.int(), { decode: (text) => adjust(Number(text)), encode: String });

