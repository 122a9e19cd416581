/**
 * The dashboard's only script. Progressive enhancement: every page and action works without it.
 * - copy buttons next to a key or secret shown once;
 * - a confirmation before actions that cannot be undone (forms with data-confirm);
 * - a form is submitted once, however often its button is pressed.
 */

function copyButtons(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy ?? "");
    if (!source) continue;
    button.hidden = false;
    const label = button.textContent;
    button.addEventListener("click", async () => {
      const value = source.textContent ?? "";
      try {
        await navigator.clipboard.writeText(value);
      } catch {
        // No clipboard access (plain http on a non-local host): select the text for Ctrl+C instead.
        getSelection()?.selectAllChildren(source);
        return;
      }
      button.textContent = button.dataset.copied ?? label;
      setTimeout(() => (button.textContent = label), 2000);
    });
  }
}

function confirmations(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (confirm(form.dataset.confirm ?? "")) return;
      event.preventDefault();
      event.stopImmediatePropagation();
    });
  }
}

function submitOnce(): void {
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || event.defaultPrevented || form.method.toLowerCase() !== "post") return;
    if (form.dataset.sent) return event.preventDefault();
    form.dataset.sent = "1";
  });
  // A page brought back by the Back button must accept its forms again.
  addEventListener("pageshow", (event: PageTransitionEvent) => {
    if (event.persisted) for (const form of document.querySelectorAll<HTMLFormElement>("form[data-sent]")) delete form.dataset.sent;
  });
}

confirmations();
submitOnce();
copyButtons();
