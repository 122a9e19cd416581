import { expect } from "bun:test";
import Ajv2020, { type ErrorObject } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { HeaderObject, OpenAPIObject, ReferenceObject, ResponseObject, SchemaObject } from "openapi3-ts/oas31";
import { parseConfig } from "@payaccept/platform";
import { buildOpenApiDocument } from "../packages/contracts/src/openapi.ts";
import { apiFacts, gatewayEnv } from "../services/gateway/src/config.ts";

/** The document a gateway started with this environment publishes (the defaults without one). */
export const documentFor = (env: Record<string, string> = {}) => buildOpenApiDocument(apiFacts(parseConfig(gatewayEnv, env)));

const DOC_ID = "https://payaccept.invalid/openapi.json";
const refName = (r: ReferenceObject) => r.$ref.slice(r.$ref.lastIndexOf("/") + 1);

/**
 * Validates values against the component schemas of the published OpenAPI document with a
 * standard JSON Schema 2020-12 validator, independently of zod, so that a test catches a document
 * that says something other than what the services do.
 */
export function documentValidator(doc: OpenAPIObject = documentFor()) {
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  // The document's refs are "#/components/schemas/X": keep that layout under one root so they resolve.
  ajv.addKeyword("components");
  ajv.addSchema({ $id: DOC_ID, components: { schemas: doc.components?.schemas } });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

  const errors = (schema: string, value: unknown): ErrorObject[] => {
    let v = compiled.get(schema);
    if (!v) {
      v = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${schema}` });
      compiled.set(schema, v);
    }
    return v(value) ? [] : [...(v.errors ?? [])];
  };

  /** The response an operation declares for a status (exact code first, then its NXX range). */
  const declared = (method: string, path: string, status: number): ResponseObject => {
    const op = (doc.paths?.[path] as Record<string, { responses: Record<string, ResponseObject | ReferenceObject> }> | undefined)?.[method];
    if (!op) throw new Error(`no operation ${method} ${path} in the document`);
    const res = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`];
    if (!res) throw new Error(`${method.toUpperCase()} ${path} does not declare ${status}`);
    return "$ref" in res ? (doc.components!.responses![refName(res)] as ResponseObject) : res;
  };

  return {
    /** The validator's complaints about value as the named schema ([] when it conforms). */
    errors,

    /**
     * Checks a real response against the operation in the document: the status is declared, every
     * declared header is present (except those marked `required: false`), and the JSON body is valid against one of the declared schemas
     * with no top-level field the schema does not name. Returns the body and the schema it matched.
     */
    async expectConforms(res: Response, method: string, path: string): Promise<{ body: unknown; schema: string }> {
      const spec = declared(method, path, res.status);
      for (const [header, h] of Object.entries(spec.headers ?? {})) {
        const declaredHeader = h.$ref === undefined ? (h as HeaderObject) : (doc.components!.headers![refName(h as ReferenceObject)] as HeaderObject);
        if (declaredHeader.required !== false) expect({ header, present: res.headers.has(header) }).toEqual({ header, present: true });
      }
      expect(res.headers.get("content-type")).toStartWith("application/json");
      const body: unknown = await res.json();
      const declaredSchema = spec.content!["application/json"]!.schema as SchemaObject | ReferenceObject;
      const candidates: ReferenceObject[] = "$ref" in declaredSchema ? [declaredSchema as ReferenceObject] : (declaredSchema.oneOf as ReferenceObject[]);
      const verdicts = candidates.map((c) => ({ schema: refName(c), problems: errors(refName(c), body) }));
      const matched = verdicts.filter((v) => v.problems.length === 0);
      expect({ status: res.status, body, matched: matched.map((m) => m.schema) }).toEqual({
        status: res.status,
        body,
        matched: [expect.any(String)],
      });
      const schema = matched[0]!.schema;
      const named = Object.keys((doc.components!.schemas![schema] as SchemaObject).properties ?? {});
      expect(Object.keys(body as object).filter((k) => !named.includes(k))).toEqual([]);
      return { body, schema };
    },
  };
}
