import type { Test } from 'supertest';

type Body = Readonly<Record<string, unknown>>;

/** One way of sending a body: JSON, or a form spelling of it (DECISIONS.md 8). */
export type Spelling = { readonly name: string; readonly send: (req: Test, body: Body) => Test };

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The body's fields as form fields: scalars as text, objects as JSON text; lists either as
 * one JSON text (`asJson`) or as repeated fields, each item as text (an object as JSON text).
 */
function formFields(body: Body, asJson: boolean): [string, string][] {
  const fields: [string, string][] = [];
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value) && !asJson) for (const item of value) fields.push([name, text(item)]);
    else fields.push([name, text(value)]);
  }
  return fields;
}

const urlencoded = (asJson: boolean): Spelling => ({
  name: `urlencoded, lists ${asJson ? 'as JSON text' : 'as repeated fields'}`,
  send: (req, body) => req.type('form').send(new URLSearchParams(formFields(body, asJson)).toString()),
});

const multipart = (asJson: boolean): Spelling => ({
  name: `multipart, lists ${asJson ? 'as JSON text' : 'as repeated fields'}`,
  send: (req, body) => formFields(body, asJson).reduce((r, [name, value]) => r.field(name, value), req),
});

export const json: Spelling = { name: 'json', send: (req, body) => req.send(body) };

/** Every form spelling of a body. */
export const formSpellings: readonly Spelling[] = [urlencoded(true), urlencoded(false), multipart(true), multipart(false)];

/** A body's field sent as malformed JSON text, in both form encodings. */
export const malformedSpellings: readonly { readonly name: string; readonly send: (req: Test, fields: Readonly<Record<string, string>>) => Test }[] = [
  { name: 'urlencoded', send: (req, fields) => req.type('form').send(new URLSearchParams(Object.entries(fields)).toString()) },
  { name: 'multipart', send: (req, fields) => Object.entries(fields).reduce((r, [name, value]) => r.field(name, value), req) },
];
