/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";

/**
 * The <head> of a server-rendered page: mobile viewport, no indexing (pages about payments are
 * nobody's search result), light scheme, and our own stylesheet and deferred script only.
 */
export function DocumentHead(props: { title: string; stylesheet: string; script: string; children?: Child }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex, nofollow" />
      <meta name="color-scheme" content="light" />
      <title>{props.title}</title>
      {/* No favicon request: an empty one, inline. */}
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href={props.stylesheet} />
      <script src={props.script} defer></script>
      {props.children}
    </head>
  );
}
