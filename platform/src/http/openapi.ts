import { z } from 'zod';
import { apiScopes } from '../auth/oauth-server.ts';
import { errorDescription, errorStatusesOf, headersOf, takesIdempotencyKey } from './documented-answers.ts';
import { requiredScope, type OperationContract } from './operation.ts';
import { responseHeaders } from './response-headers.ts';

type JsonObject = Record<string, unknown>;

const bodyTypes = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const;

/**
 * A query parameter is text; one whose schema is a codec (text checked, then decoded to a
 * number or a boolean) is documented as what it decodes to, from the same schema.
 */
function isWireCodec(schema: z.ZodType): boolean {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
  return inner instanceof z.ZodCodec;
}

const errorSchema = z
  .object({
    status: z.number().int(),
    code: z.string().describe('Stable snake_case word that clients may switch on.'),
    detail: z.string(),
    errors: z.record(z.string(), z.array(z.string())).optional(),
  })
  .meta({ id: 'Error' });

export type OpenApiOptions = {
  readonly publicUrl: string;
  readonly title: string;
  readonly version: string;
  readonly extraSchemas?: Readonly<Record<string, JsonObject>>;
  /** The session cookie's name on this deployment (`__Host-` prefixed over https). */
  readonly sessionCookieName?: string;
};

/** OpenAPI 3.1 from the same zod schemas that validate requests (issue 2, item 7). */
export function buildOpenApiDocument(contracts: readonly OperationContract[], options: OpenApiOptions): JsonObject {
  const components: Record<string, JsonObject> = { ...options.extraSchemas };

  // Schemas with a `meta({ id })` become components; zod emits them as $defs, which are
  // moved into components and their references rewritten.
  const schemaRef = (schema: z.ZodType, io: 'input' | 'output'): JsonObject => {
    const raw = JSON.stringify(z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }));
    const converted = JSON.parse(raw.replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonObject;
    delete converted['$schema'];
    const defs = (converted['$defs'] ?? {}) as Record<string, JsonObject>;
    delete converted['$defs'];
    for (const [name, def] of Object.entries(defs)) {
      delete def['id'];
      components[name] ??= def;
    }
    return converted;
  };

  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const contract of contracts) {
    const parameters: JsonObject[] = [...contract.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string', format: 'uuid' },
    }));
    for (const [name, field] of Object.entries(contract.query?.shape ?? {})) {
      const fieldSchema = field as z.ZodType;
      const schema = schemaRef(fieldSchema, isWireCodec(fieldSchema) ? 'output' : 'input');
      parameters.push({
        name,
        in: 'query',
        required: !fieldSchema.safeParse(undefined).success,
        schema,
        ...(fieldSchema.description ? { description: fieldSchema.description } : {}),
        // `.meta({ deprecated: true })` on the field: interface 4.3.1's `ordering`.
        ...(schema['deprecated'] === true ? { deprecated: true } : {}),
      });
    }
    parameters.push({
      name: 'X-Consistency-Token',
      in: 'header',
      required: false,
      description: 'A token from a write response: the read waits until the read models reflect that write.',
      schema: { type: 'string' },
    });
    const keyed = takesIdempotencyKey(contract);
    if (keyed) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Any 1 to 255 visible ASCII characters, new for each request: a retry with the same key and body answers the first answer again (for 24 hours) without writing twice; the same key with another body is 422 (docs/idempotency.md).',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      });
    }
    const errorStatuses = errorStatusesOf(contract);
    // 412 is only ever the answer to If-Match.
    if (errorStatuses.includes(412)) {
      parameters.push({
        name: 'If-Match',
        in: 'header',
        required: false,
        description: 'The version last read (the `provenance_token`; quoted, W/ or bare): the write is refused with 412 if the resource changed since. Absent or `*`: no precondition.',
        schema: { type: 'string' },
      });
    }

    // Every status the operation may answer, each with the headers it may carry (documented-answers.ts).
    const headerRefs = (status: number) => {
      const names = headersOf(contract, status);
      return names.length > 0 ? { headers: Object.fromEntries(names.map((h) => [h, { $ref: `#/components/headers/${h}` }])) } : {};
    };
    const responses: Record<string, JsonObject> = {};
    for (const [status, response] of Object.entries(contract.responses)) {
      responses[status] = {
        description: response.description,
        ...headerRefs(Number(status)),
        ...(response.schema || response.stream
          ? {
              content: {
                ...(response.schema ? { 'application/json': { schema: schemaRef(response.schema, 'output') } } : {}),
                ...(response.stream ? { [response.stream.contentType]: { schema: { type: 'string', description: response.stream.description } } } : {}),
              },
            }
          : {}),
      };
    }
    for (const status of errorStatuses) {
      responses[String(status)] ??= { description: errorDescription(status), ...headerRefs(status), content: { 'application/json': { schema: schemaRef(errorSchema, 'output') } } };
    }

    const operation: JsonObject = {
      operationId: contract.operationId,
      summary: contract.summary,
      tags: [contract.tag],
      parameters,
      responses,
      security: contract.authenticated ? [{ oauth2: [requiredScope(contract)] }, { cookieAuthCsrfExempt: [] }] : [],
    };
    if (contract.body) {
      const schema = schemaRef(contract.body, 'input');
      operation['requestBody'] = {
        required: contract.bodyRequired ?? false,
        content: Object.fromEntries(bodyTypes.map((type) => [type, { schema }])),
      };
    }
    if (contract.rawBody) {
      operation['requestBody'] = { required: true, description: contract.rawBody.description, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } };
    }
    (paths[contract.path] ??= {})[contract.method] = operation;
  }

  const scopes = Object.fromEntries([...apiScopes.map((s) => [s, `${s} access to the API`]), ['openid', 'share the e-mail address']]);
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version },
    servers: [{ url: options.publicUrl }],
    paths,
    components: {
      schemas: components,
      headers: Object.fromEntries(Object.entries(responseHeaders).map(([name, h]) => [name, { description: h.description, schema: schemaRef(h.schema, 'output') }])),
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description:
            'OAuth 2.0 with PKCE (S256, required for every client). Hosts without a browser use the device authorization grant (RFC 8628): POST /oauth/device/auth, show the user the verification address and code, poll /oauth/token with grant_type urn:ietf:params:oauth:grant-type:device_code. Refresh tokens rotate on use. Discovery: /.well-known/openid-configuration.',
          flows: {
            authorizationCode: {
              authorizationUrl: `${options.publicUrl}/oauth/authorize`,
              tokenUrl: `${options.publicUrl}/oauth/token`,
              refreshUrl: `${options.publicUrl}/oauth/token`,
              scopes,
            },
          },
          'x-device-authorization-url': `${options.publicUrl}/oauth/device/auth`,
        },
        cookieAuthCsrfExempt: {
          type: 'apiKey',
          in: 'cookie',
          name: options.sessionCookieName ?? '__Host-cairn_session',
          description: 'The session cookie of the signed-in web application. No CSRF token is needed: cross-site writes are refused by their Origin and Sec-Fetch-Site headers.',
        },
      },
    },
  };
}
