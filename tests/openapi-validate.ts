import Ajv2020, { type ErrorObject } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenAPIObject } from "openapi3-ts/oas31";
import { buildOpenApiDocument } from "../packages/contracts/src/openapi.ts";

const DOC_ID = "https://payaccept.invalid/openapi.json";

/**
 * Validates values against the component schemas of the published OpenAPI document with a
 * standard JSON Schema 2020-12 validator, independently of zod, so that a test catches a document
 * that says something other than what the services do.
 */
export function documentValidator(doc: OpenAPIObject = buildOpenApiDocument()) {
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  // The document's refs are "#/components/schemas/X": keep that layout under one root so they resolve.
  ajv.addKeyword("components");
  ajv.addSchema({ $id: DOC_ID, components: { schemas: doc.components?.schemas } });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const validatorFor = (schema: string) => {
    let v = compiled.get(schema);
    if (!v) {
      v = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${schema}` });
      compiled.set(schema, v);
    }
    return v;
  };
  return {
    /** The validator's complaints about value as the named schema ([] when it conforms). */
    errors(schema: string, value: unknown): ErrorObject[] {
      const v = validatorFor(schema);
      return v(value) ? [] : [...(v.errors ?? [])];
    },
    /** The schema an operation's response with this status declares (first JSON alternative for oneOf). */
    responseSchemas(method: string, path: string, status: number): string[] {
      const op = (doc.paths?.[path] as Record<string, { responses: Record<string, unknown> }> | undefined)?.[method];
      if (!op) throw new Error(`no operation ${method} ${path} in the document`);
      const res = (op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`]) as
        | { $ref?: string; content?: Record<string, { schema: { $ref?: string; oneOf?: { $ref: string }[] } }> }
        | undefined;
      if (!res) throw new Error(`${method} ${path} declares no ${status} response`);
      const resolved = res.$ref ? (doc.components?.responses?.[res.$ref.split("/").pop()!] as typeof res) : res;
      const schema = resolved?.content?.["application/json"]?.schema;
      if (!schema) return [];
      const refs = schema.oneOf ? schema.oneOf.map((s) => s.$ref!) : [schema.$ref!];
      return refs.map((r) => r.split("/").pop()!);
    },
  };
}
