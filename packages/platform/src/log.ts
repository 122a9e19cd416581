import pino from "pino";

export type Logger = pino.Logger;

/** Structured JSON, one line per request or event; secrets and card data are redacted by path. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        "apiKey",
        "*.apiKey",
        "signingSecret",
        "*.signingSecret",
        "password",
        "*.password",
        "headers['x-api-key']",
        "*.headers['x-api-key']",
        "pan",
        "*.pan",
        "cvc",
        "*.cvc",
        "card",
        "*.card",
      ],
      censor: "[redacted]",
    },
  });
}
