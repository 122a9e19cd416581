import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { freePort } from "./ports.ts";
import { eventually } from "./stack.ts";

/**
 * A real SMTP server on a free loopback port that keeps every mail it receives, parsed: what the
 * dashboard's mailer (nodemailer over SMTP_URL) sends, as a mailbox would get it. No TLS and no
 * authentication: a relay on the same host, as in a development stack.
 */
export type SmtpSink = {
  /** SMTP_URL for the stack. */
  url: string;
  mails: ParsedMail[];
  /** The first mail to `to` (waits for it, bounded). */
  mailTo(to: string): Promise<ParsedMail>;
  stop(): Promise<void>;
};

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          mails.push(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const addressOf = (mail: ParsedMail) => [mail.to ?? []].flat().flatMap((a) => a.value.map((v) => v.address?.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    mailTo: (to) => eventually(() => mails.find((m) => addressOf(m).includes(to.toLowerCase())), 20_000),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
