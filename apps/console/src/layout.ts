import { html, type Markup } from "./html.js";

/** The sections of the console, in the order of its navigation. */
const SECTIONS = Object.freeze([
  { path: "/approvals", label: "Approvals" },
  { path: "/runs", label: "Runs" },
  { path: "/servers", label: "Servers" },
  { path: "/audit", label: "Audit" },
]);

/** What a page needs around its content. */
export interface PageFrame {
  title: string;
  /** The section path of the navigation to mark current. */
  section: string;
  csrfToken: string;
  operator: string;
  /** The server-sent events URL whose `changed` events refresh this page's main part, if any. */
  watch?: string;
}

/** A whole page: the navigation, then `content` in `<main>`; the script and style are files of this origin. */
export function renderPage(frame: PageFrame, content: Markup): string {
  const nav = SECTIONS.map(
    (section) =>
      html`<li><a href="${section.path}"${section.path === frame.section ? html` aria-current="page"` : ""}>${section.label}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${frame.csrfToken}">
<title>${frame.title} · agent console</title>
<link rel="stylesheet" href="/console.css"><script src="/console.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><span class="brand">agent console</span><nav aria-label="Sections"><ul>${nav}</ul></nav>
<span class="operator">signed in as ${frame.operator}</span></header>
<main id="main" tabindex="-1"${frame.watch ? html` data-watch="${frame.watch}"` : ""}>
<h1>${frame.title}</h1>
${content}
</main></body></html>`.value;
}

/** A small page for someone not logged in (or with a used link): says what to do. */
export function renderNotice(title: string, message: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · agent console</title><link rel="stylesheet" href="/console.css"></head>
<body><main id="main"><h1>${title}</h1><p>${message}</p></main></body></html>`.value;
}

/** The hidden field every state-changing form carries. */
export function csrfField(token: string): Markup {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}
