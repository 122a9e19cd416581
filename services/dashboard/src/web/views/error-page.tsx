import type { Page } from "../page.ts";
import { Layout } from "./layout.tsx";

/** Every failure a person sees: a title, one sentence, and a way on. Never a stack trace. */
export function ErrorPage(props: { page: Page; title: string; text: string; reason?: string }) {
  return (
    <Layout page={props.page} title={props.title}>
      <section class="card narrow" data-reason={props.reason}>
        <h1>{props.title}</h1>
        <p>{props.text}</p>
        <p>
          <a class="button primary" href="/">
            {props.page.t.backHome}
          </a>
        </p>
      </section>
    </Layout>
  );
}
