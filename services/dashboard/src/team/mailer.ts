import type { Transporter } from "nodemailer";

/** One plain-text mail. */
export type Mail = { to: string; subject: string; text: string };
export type Mailer = { send(mail: Mail): Promise<void> };

/**
 * How long one mail may take: connecting, the server's greeting, then every wait on the socket.
 * The inviter waits for it (the page says whether the mail went), so it is short.
 */
const SMTP_TIMEOUT_MS = 10_000;

/**
 * Mails through the SMTP server of SMTP_URL (nodemailer: STARTTLS when offered, smtps:// for TLS
 * from the start). nodemailer is loaded at the first mail: 650 KiB of source that a dashboard
 * sending no mail would keep resident (docs/performance.md, "Memory").
 */
export function smtpMailer(url: string, from: string): Mailer {
  let transport: Promise<Transporter> | undefined;
  const transporter = () =>
    (transport ??= import("nodemailer").then(({ createTransport }) =>
      createTransport({ url, connectionTimeout: SMTP_TIMEOUT_MS, greetingTimeout: SMTP_TIMEOUT_MS, socketTimeout: SMTP_TIMEOUT_MS }),
    ));
  return {
    send: async (mail) => void (await (await transporter()).sendMail({ from, ...mail })),
  };
}
