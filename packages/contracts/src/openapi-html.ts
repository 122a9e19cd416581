import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from "openapi3-ts/oas31";

/**
 * A readable, self-contained HTML page for an OpenAPI document: operations, webhooks and schemas
 * rendered on the server, no script and nothing loaded from elsewhere, so it works offline and
 * under a strict Content-Security-Policy.
 */

const esc = (s: unknown) =>
  String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Escaped text with the document's `code` spans kept as code. */
const prose = (s: unknown) => esc(s).replace(/`([^`]+)`/g, "<code>$1</code>");

const isRef = (x: unknown): x is ReferenceObject => typeof x === "object" && x !== null && "$ref" in x;
const refName = (r: ReferenceObject) => r.$ref.slice(r.$ref.lastIndexOf("/") + 1);

const CONSTRAINTS = ["format", "minimum", "maximum", "minLength", "maxLength", "default"] as const;

/** One line of HTML saying what a schema accepts; long generated patterns are left to the JSON. */
function typeOf(s: SchemaObject | ReferenceObject | undefined): string {
  if (!s) return "any";
  if (isRef(s)) return `<a href="#schema-${esc(refName(s))}">${esc(refName(s))}</a>`;
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives) return alternatives.map(typeOf).join(" | ");
  if (s.type === "array") return `array of ${typeOf(s.items)}`;
  const base = esc(Array.isArray(s.type) ? s.type.join(" | ") : (s.type ?? "any"));
  const facts = CONSTRAINTS.filter((k) => s[k] !== undefined).map((k) => `${k} ${esc(s[k])}`);
  if (s.enum) facts.push(`one of ${s.enum.map(esc).join(", ")}`);
  if (s.pattern && s.pattern.length <= 40) facts.push(`pattern <code>${esc(s.pattern)}</code>`);
  return facts.length ? `${base} <small>(${facts.join("; ")})</small>` : base;
}

/** The referenced component, with the reference's own description in place of its own (OpenAPI 3.1). */
function deref<T>(doc: OpenAPIObject, x: T | ReferenceObject, kind: "responses" | "parameters"): T {
  if (!isRef(x)) return x;
  const target = (doc.components?.[kind]?.[refName(x)] as T | undefined) ?? ({} as T);
  return x.description === undefined ? target : { ...target, description: x.description };
}

const table = (head: string[], rows: string[][]) =>
  rows.length === 0
    ? ""
    : `<table><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr>${rows
        .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`)
        .join("")}</table>`;

function renderOperation(doc: OpenAPIObject, method: string, path: string, op: OperationObject): string {
  const params = (op.parameters ?? []).map((p) => deref<ParameterObject>(doc, p, "parameters"));
  const body = op.requestBody && !isRef(op.requestBody) ? op.requestBody.content["application/json"]?.schema : undefined;
  const responses = Object.entries(op.responses ?? {}).map(([code, r]) => {
    const res = deref<ResponseObject>(doc, r as ResponseObject | ReferenceObject, "responses");
    const schema = res.content?.["application/json"]?.schema;
    return [`<code>${esc(code)}</code>`, schema ? typeOf(schema) : "", prose(res.description)];
  });
  return `<section id="op-${esc(op.operationId)}">
<h3><span class="m m-${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code> — ${esc(op.summary)}</h3>
<p>${prose(op.description)}</p>
${table(["Parameter", "In", "Required", "Type", "Meaning"], params.map((p) => [`<code>${esc(p.name)}</code>`, esc(p.in), p.required ? "yes" : "no", typeOf(p.schema), prose(p.description)]))}
${body ? `<p>Body: ${typeOf(body)}</p>` : ""}
${table(["Status", "Body", "Meaning"], responses)}
</section>`;
}

function renderSchema(name: string, s: SchemaObject): string {
  const required = new Set(s.required ?? []);
  const rows = Object.entries(s.properties ?? {}).map(([prop, ps]) => [
    `<code>${esc(prop)}</code>`,
    typeOf(ps),
    required.has(prop) ? "yes" : "no",
    prose(isRef(ps) ? "" : ps.description),
  ]);
  return `<section id="schema-${esc(name)}"><h3>${esc(name)}</h3><p>${prose(s.description)}</p>${table(["Field", "Type", "Required", "Meaning"], rows)}</section>`;
}

function operationsOf(doc: OpenAPIObject, items: Record<string, Record<string, unknown>> | undefined): string {
  return Object.entries(items ?? {})
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
        .map(([method, op]) => renderOperation(doc, method, path, op as OperationObject)),
    )
    .join("\n");
}

export function renderOpenApiHtml(doc: OpenAPIObject, jsonHref = "openapi.json"): string {
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .map(([name, s]) => renderSchema(name, s as SchemaObject))
    .join("\n");
  const server = doc.servers?.[0]?.url ?? "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} ${esc(doc.info.version)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f4f4}section{border-top:1px solid #eee;padding-top:.5rem}code{background:#f4f4f4;padding:0 .2rem}
.m{display:inline-block;min-width:3.5rem;text-align:center;border-radius:3px;color:#fff;font-size:.8rem;padding:.1rem .3rem}
.m-get{background:#2f6f9f}.m-post{background:#2f8f4f}small{color:#555}
</style></head><body>
<h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1>
<p>${prose(doc.info.description)}</p>
<p>Base address: <code>${esc(server)}</code>. Every call needs the <code>X-Api-Key</code> header. Machine-readable document: <a href="${esc(jsonHref)}">OpenAPI ${esc(doc.openapi)} JSON</a>.</p>
<h2>Operations</h2>
${operationsOf(doc, doc.paths as Record<string, Record<string, unknown>>)}
<h2>Webhooks</h2>
${operationsOf(doc, doc.webhooks as Record<string, Record<string, unknown>>)}
<h2>Schemas</h2>
${schemas}
</body></html>
`;
}
