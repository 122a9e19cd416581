import { failure, failureText, type Failure } from "@payaccept/contracts";
import { isIpLiteral, resolvePublicAddresses, systemResolver, type Resolver } from "@payaccept/domain";

/**
 * Where one attempt connects. The name is resolved once, the address checked, and the request
 * sent to that address with the original Host header and TLS server name, so a DNS answer that
 * changes between the check and the connect (rebinding) cannot redirect us into a private network.
 */
export type WebhookTarget = {
  /** The webhook URL with its host replaced by the checked address. */
  connectUrl: string;
  hostHeader: string;
  /** For https to a name: SNI and the name the certificate must match. */
  serverName: string | undefined;
  address: string;
};

/** The URL cannot be used as it is (not a URL, not http/https, no address): the merchant must fix it. */
export class InvalidWebhookUrlError extends Error {
  constructor(readonly failure: Failure) {
    super(failureText(failure));
  }
}

const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, "$1");

export async function resolveTarget(
  webhookUrl: string,
  opts: { allowPrivate: boolean; resolve?: Resolver },
): Promise<WebhookTarget> {
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    throw new InvalidWebhookUrlError(failure("WEBHOOK_URL_INVALID"));
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new InvalidWebhookUrlError(failure("WEBHOOK_URL_SCHEME", { scheme: url.protocol }));
  }
  const resolve = opts.resolve ?? systemResolver;
  const host = unbracket(url.hostname);
  // Throws NonPublicAddressError for a private name, literal or resolved address.
  const addresses = opts.allowPrivate
    ? isIpLiteral(host)
      ? [host]
      : (await resolve(host)).map((a) => a.address)
    : await resolvePublicAddresses(host, resolve);
  const address = addresses[0];
  if (address === undefined) throw new InvalidWebhookUrlError(failure("WEBHOOK_HOST_NO_ADDRESS", { host }));
  const connect = new URL(url);
  connect.hostname = address.includes(":") ? `[${address}]` : address;
  return {
    connectUrl: connect.href,
    hostHeader: url.host,
    serverName: url.protocol === "https:" && !isIpLiteral(host) ? host : undefined,
    address,
  };
}
