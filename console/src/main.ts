/** The console's entry: take the token from the URL fragment, then render. */
import { html, render } from "htm/preact";
import { App } from "./components/app.js";
import { resolveToken, tokenFromHash } from "./token.js";

const token = resolveToken({
  hash: location.hash,
  storage: sessionStorage,
  replaceHash: (hash) => history.replaceState(history.state, "", `${location.pathname}${location.search}${hash}`),
});

// A console URL pasted into an open tab only changes the fragment (no navigation): start over with its token.
window.addEventListener("hashchange", () => {
  if (tokenFromHash(location.hash).token !== undefined) location.reload();
});

const root = document.getElementById("app");
if (root !== null) render(html`<${App} token=${token} />`, root);
