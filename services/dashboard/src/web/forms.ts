import type { Context } from "hono";

export type Form = Record<string, string | File | (string | File)[]>;

/** The posted form (url-encoded or multipart); parsed once per request and cached by Hono. */
export const formOf = (c: Context): Promise<Form> => c.req.parseBody({ all: true });

/** A field's text ("" when absent, a file, or repeated: the first value counts). */
export function text(form: Form, name: string): string {
  const v = form[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === "string" ? first : "";
}

/** Every text value of a repeated field (checkboxes). */
export function texts(form: Form, name: string): string[] {
  const v = form[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === "string");
}
