/**
 * The console's script and style, served as files of its own origin (`/console.js`, `/console.css`)
 * so the Content-Security-Policy allows no inline script or style. The script builds nothing from
 * markup: server data reaches the page as server-escaped HTML or as `textContent`.
 */

/** The console's only script: live refresh over server-sent events, the audit stream, copy buttons. */
export const CONSOLE_SCRIPT = `"use strict";
(function () {
  var main = document.getElementById("main");
  // One refresh at a time, the latest wins: two fetches in flight could answer out of order and
  // leave the page on the older state, with no later change to correct it. A failed fetch (the
  // server busy or restarting) is tried again, a bounded number of times, rather than dropped.
  var refreshing = false;
  var stale = false;
  var failures = 0;
  function refresh() {
    if (refreshing) { stale = true; return; }
    refreshing = true;
    stale = false;
    fetch(location.href, { headers: { accept: "text/html" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.text();
      })
      .then(function (text) {
        failures = 0;
        var next = new DOMParser().parseFromString(text, "text/html").getElementById("main");
        var active = document.activeElement && document.activeElement.id;
        if (next && main) main.innerHTML = next.innerHTML;
        if (active && document.getElementById(active)) document.getElementById(active).focus();
        document.dispatchEvent(new CustomEvent("console:refreshed"));
      })
      .catch(function () {
        failures += 1;
        if (failures <= 5) stale = true;
      })
      .then(function () {
        refreshing = false;
        if (stale) setTimeout(refresh, failures === 0 ? 0 : 1000 * failures);
      });
  }
  if (main && main.dataset.watch) {
    var changes = new EventSource(main.dataset.watch);
    changes.addEventListener("changed", refresh);
    // The stream's first look may come after a change the page missed (and a reconnect after a
    // dropped stream may too): refresh each time it opens.
    changes.addEventListener("open", refresh);
  }
  var audit = document.getElementById("audit");
  if (audit && audit.dataset.stream) {
    var records = new EventSource(audit.dataset.stream);
    records.addEventListener("record", function (event) {
      var item = document.createElement("li");
      item.className = "wrap";
      item.textContent = event.data;
      audit.appendChild(item);
    });
    records.addEventListener("failed", function (event) {
      var item = document.createElement("li");
      item.className = "warn";
      item.textContent = "The audit stream stopped: " + event.data;
      audit.appendChild(item);
      records.close();
    });
  }
  document.addEventListener("click", function (event) {
    var button = event.target;
    if (!(button instanceof HTMLButtonElement) || !button.classList.contains("copy")) return;
    var text = button.previousElementSibling ? button.previousElementSibling.textContent : "";
    if (navigator.clipboard) {
      navigator.clipboard.writeText(text || "").then(function () { button.textContent = "Copied"; }, function () { button.textContent = "Copy failed: select the text"; });
    } else {
      button.textContent = "Copy unavailable: select the text";
    }
  });
})();
`;

/** The console's style: one column on a phone, wrapped long values, status in words (not only colour). */
export const CONSOLE_STYLE = `*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,sans-serif;color:#111;background:#fff}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.5rem 1rem;border-bottom:2px solid #111}
header ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
a{color:#0645ad}a[aria-current=page]{font-weight:700;text-decoration:underline double}
.brand{font-weight:700}.operator{margin-left:auto;font-size:.9rem}
main{padding:1rem;max-width:70rem;margin:0 auto}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem}
:focus-visible{outline:3px solid #000;outline-offset:2px}
.table{overflow-x:auto}table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid #999}
.wrap,pre.text{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word}
pre.text{max-height:24rem;overflow:auto;background:#f4f4f4;padding:.5rem;border:1px solid #999;margin:.25rem 0}
.status{font-weight:700;font-family:ui-monospace,monospace}
tr.pending td{border-left:4px solid #000}
.warn{font-weight:700}.warn::before{content:"⚠ "}
.notice{border:2px solid #000;padding:.5rem}
dl.facts{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.25rem 1rem}
dl.facts dd{margin:0;min-width:0}
.decide form,.actions form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}
button{font:inherit;padding:.4rem .9rem;border:2px solid #111;background:#fff;cursor:pointer}
input{font:inherit;padding:.3rem;border:1px solid #111;max-width:100%}
.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
ol.transcript li,ol.audit li{margin:.35rem 0;padding:.25rem 0;border-bottom:1px solid #ccc}
li.held{border-left:4px double #000;padding-left:.5rem}
@media (max-width:40rem){dl.facts{grid-template-columns:1fr}dl.facts dt{font-weight:700}th,td{padding:.3rem}}
`;
