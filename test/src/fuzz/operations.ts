import { allContracts } from '@cairn/contract';
import type { OperationContract } from '@cairn/platform';
import type { JsonSchema } from './schema-arbitrary.ts';

/** One operation as the served OpenAPI document describes it, with its contract beside it. */
export type Operation = {
  readonly operationId: string;
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly path: string;
  readonly params: readonly string[];
  readonly query: readonly { readonly name: string; readonly schema: JsonSchema; readonly required: boolean }[];
  readonly body: JsonSchema | undefined;
  readonly bodyRequired: boolean;
  readonly authenticated: boolean;
  readonly side: 'command' | 'query';
  readonly contract: OperationContract;
  /** The statuses the document gives the operation, each with its headers (lower case). */
  readonly documented: ReadonlyMap<number, ReadonlySet<string>>;
};

export type OpenApiDocument = {
  readonly paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
        requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
        responses: Record<string, { headers?: Record<string, unknown> }>;
      }
    >
  >;
  readonly components: { readonly schemas: Record<string, JsonSchema> };
};

/**
 * Every operation of the document, each joined to its contract. The document is generated
 * from `allContracts`; the two must name the same operations, or the fuzzer would miss one.
 */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const contracts = new Map(allContracts.map((c) => [c.operationId, c] as const));
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const contract = contracts.get(op.operationId);
      if (!contract) throw new Error(`the OpenAPI document has ${op.operationId}, which no contract defines`);
      contracts.delete(op.operationId);
      const parameters = op.parameters ?? [];
      const body = op.requestBody?.content['application/json']?.schema;
      operations.push({
        operationId: op.operationId,
        method: method as Operation['method'],
        path,
        params: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {}, required: p.required ?? false })),
        body,
        bodyRequired: op.requestBody?.required ?? false,
        authenticated: contract.authenticated,
        side: contract.side,
        contract,
        documented: new Map(Object.entries(op.responses).map(([status, r]) => [Number(status), new Set(Object.keys(r.headers ?? {}).map((h) => h.toLowerCase()))])),
      });
    }
  }
  if (contracts.size > 0) throw new Error(`contracts missing from the OpenAPI document: ${[...contracts.keys()].join(', ')}`);
  return operations;
}
