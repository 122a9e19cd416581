import { Layout, type PageContext } from "./layout.tsx";

/** A friendly page for every failure: a title, one sentence, and a way back. Never a stack trace. */
export function ErrorPage(props: { page: PageContext; title: string; text: string; detail?: string[]; link?: { href: string; label: string } }) {
  return (
    <Layout page={props.page} title={props.title}>
      <section class="result" aria-labelledby="result-title">
        <h1 id="result-title">{props.title}</h1>
        <p>{props.text}</p>
        {props.detail?.map((line) => <p class="error-detail">{line}</p>)}
        {props.link ? (
          <a class="button primary" href={props.link.href}>
            {props.link.label}
          </a>
        ) : null}
      </section>
    </Layout>
  );
}
