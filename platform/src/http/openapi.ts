import { z } from 'zod';
import { apiScopes } from '../auth/oauth-server.ts';
import { requiredScope, type OperationContract } from './operation.ts';

type JsonObject = Record<string, unknown>;

const bodyTypes = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const;

const errorSchema = z
  .object({
    status: z.number().int(),
    code: z.string().describe('Stable snake_case word that clients may switch on.'),
    detail: z.string(),
    errors: z.record(z.string(), z.array(z.string())).optional(),
  })
  .meta({ id: 'Error' });

const errorStatuses: Record<number, string> = {
  400: 'Invalid input.',
  401: 'No or bad credentials.',
  403: 'Not allowed.',
  404: 'Not found, or not visible to the caller.',
  405: 'Method not allowed.',
  409: 'A refused guard or a conflicting write.',
  413: 'Body too large.',
  415: 'Unsupported content type.',
  422: 'The Idempotency-Key was used with another request.',
  423: 'The asset is locked.',
  503: 'A dependency is unavailable, or read models lag behind the consistency token sent.',
};

export type OpenApiOptions = {
  readonly publicUrl: string;
  readonly title: string;
  readonly version: string;
  readonly extraSchemas?: Readonly<Record<string, JsonObject>>;
  /** The session cookie's name on this deployment (`__Host-` prefixed over https). */
  readonly sessionCookieName?: string;
};

/**
 * A body with a UUID field anywhere names other resources: one that is unknown or hidden
 * is 404 (DECISIONS.md 1), on routes without a path id too (docs/http.md).
 */
function bodyNamesIds(body: z.ZodType | undefined): boolean {
  return body !== undefined && JSON.stringify(z.toJSONSchema(body, { io: 'input', unrepresentable: 'any' })).includes('"format":"uuid"');
}

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
      parameters.push({
        name,
        in: 'query',
        required: !fieldSchema.safeParse(undefined).success,
        schema: schemaRef(fieldSchema, 'input'),
        ...(fieldSchema.description ? { description: fieldSchema.description } : {}),
      });
    }
    parameters.push({
      name: 'X-Consistency-Token',
      in: 'header',
      required: false,
      description: 'A token from a write response: the read waits until the read models reflect that write.',
      schema: { type: 'string' },
    });
    const keyed = contract.side === 'command' && contract.method === 'post';
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

    const responses: Record<string, JsonObject> = {};
    for (const [status, response] of Object.entries(contract.responses)) {
      responses[status] = {
        description: response.description,
        ...(contract.side === 'command' ? { headers: { 'X-Consistency-Token': { schema: { type: 'string' }, description: 'Send back on reads to see this write.' } } } : {}),
        ...(response.schema ? { content: { 'application/json': { schema: schemaRef(response.schema, 'output') } } } : {}),
      };
    }
    const errorCodes = [400, ...(contract.authenticated ? [401, 403] : []), ...(contract.path.includes('{') || bodyNamesIds(contract.body) ? [404] : []), ...(contract.side === 'command' ? [409, 413, 415] : []), ...(keyed ? [422] : []), 503];
    for (const status of errorCodes) {
      responses[String(status)] ??= { description: errorStatuses[status] ?? 'Error.', content: { 'application/json': { schema: schemaRef(errorSchema, 'output') } } };
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
