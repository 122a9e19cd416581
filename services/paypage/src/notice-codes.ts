/** `?notice=` of a page the script reloaded because the payment's method was switched elsewhere (shared with the browser bundle, so free of imports). */
export const METHOD_CHANGED = "method-changed";
