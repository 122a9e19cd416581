import type { Messages } from "./i18n.ts";

/**
 * The services report refusals in English ("webhookUrl: must use https"); the owner reads them in
 * the page's language: field names and known reasons are translated, anything else is shown as is.
 */
export function describeProblems(messages: string | string[], t: Messages): string[] {
  return (Array.isArray(messages) ? messages : [messages]).map((message) => {
    const [, field, reason] = /^(\w+): (.*)$/.exec(message) ?? [undefined, undefined, message];
    const known = t.problems.find(([pattern]) => pattern.test(reason!));
    const text = known ? reason!.replace(known[0], known[1]) : reason!;
    return field ? `${t.problemFields[field] ?? field}: ${text}` : text;
  });
}
