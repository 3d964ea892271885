import { esc, header, t } from "./common.js";

const $ = (id) => document.getElementById(id);
const history = []; // the conversation sent with each question

/** A source's address: a passage's reader page (/read/<coordinate>), a web page only over http(s); else null. */
function sourceHref(s) {
  if (s.kind !== "web") return s.url;
  try {
    return ["http:", "https:"].includes(new URL(s.url).protocol) ? s.url : null;
  } catch {
    return null;
  }
}

/** A link to a source, or its label as plain text when its address may not be followed (javascript: …). */
function sourceLink(s, label, attrs = "") {
  const href = sourceHref(s);
  if (href === null) return `<span class="nolink"${attrs}>${label}</span>`;
  const target = s.kind === "web" ? ' target="_blank" rel="noopener"' : "";
  return `<a href="${esc(href)}"${target}${attrs}>${label}</a>`;
}

/** The answer with each [n] as a link to its source (the reader, or the web page). */
function answerHtml(text, sources) {
  const byN = new Map(sources.map((s) => [s.n, s]));
  return esc(text).replace(/\[(\d+(?:\?)?(?:,\s*\d+\??)*)\]/g, (_, inner) => {
    const links = inner.split(/,\s*/).map((part) => {
      const n = parseInt(part, 10);
      const s = byN.get(n);
      if (!s) return esc(part);
      const failed = part.endsWith("?") ? ' class="failed" title="quotation not found in this source"' : "";
      return sourceLink(s, esc(part), `${failed} data-n="${n}"`);
    });
    return `[${links.join(", ")}]`;
  });
}

function renderSources(sources) {
  $("sources").innerHTML = sources.map((s) => {
    const badges = [s.kind === "web" ? `<span class="badge web">${esc(t("chat.web"))}</span>` : "",
      s.weak ? `<span class="badge weak">${esc(t("chat.weak"))}</span>` : "",
      s.cited ? `<span class="badge cited">${esc(t("chat.cited"))}</span>` : ""].join(" ");
    return `<li id="source-${s.n}" value="${s.n}">${badges}
      ${sourceLink(s, esc(s.citation || s.title))}
      <div class="path">${esc(s.coordinate || s.url)}</div></li>`;
  }).join("");
}

function addTurn(role, html, cls = "") {
  const el = document.createElement("div");
  el.className = `turn ${role} ${cls}`.trim();
  el.innerHTML = html;
  $("turns").append(el);
  el.scrollIntoView({ block: "end" });
  return el;
}

/** Change a turn; if its end was in sight above the question box, keep it there as it grows. */
function update(turn, change) {
  const inSight = turn.getBoundingClientRect().bottom <= $("ask-form").getBoundingClientRect().top + 24;
  change();
  if (inSight) turn.scrollIntoView({ block: "end" });
}

/** Read Server-Sent Events from a fetch response, calling onEvent(kind, data) for each. */
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const kind = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (kind && data) onEvent(kind, JSON.parse(data));
    }
  }
}

async function ask(question) {
  history.push({ role: "user", content: question });
  addTurn("user", esc(question));
  const turn = addTurn("assistant", `<span class="note">${esc(t("chat.thinking"))}</span>`);
  $("send").disabled = true;
  let text = "";
  let finished = false;
  try {
    const response = await fetch("/api/v3/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ messages: history, sources: $("scope").value, stream: true }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new Error(body.error?.message || `HTTP ${response.status}`);
    }
    await readEvents(response, (kind, data) => {
      if (kind === "sources") renderSources(data.sources);
      else if (kind === "token") { text += data.text; update(turn, () => (turn.textContent = text)); }
      else if (kind === "error") { turn.className = "turn assistant error"; turn.innerHTML = `<b>${esc(t("chat.error"))}:</b> ${esc(data.message)}`; finished = true; }
      else if (kind === "done") update(turn, () => {
        finished = true;
        renderSources(data.sources);
        if (data.outcome === "not_found") {
          turn.className = "turn assistant refusal";
          turn.innerHTML = `<b>${esc(t("chat.refusal"))}.</b> ${esc(data.answer)}`;
        } else if (data.notice) {
          // said first and set apart: no model wrote this (and the setting that turns one on); the passages below
          const message = data.notice.code === "no_model" ? t("chat.nomodel") : data.notice.message;
          const rest = data.answer.startsWith(data.notice.message) ? data.answer.slice(data.notice.message.length).trimStart() : data.answer;
          turn.className = "turn assistant passages";
          turn.innerHTML = `<p class="notice" role="note" data-code="${esc(data.notice.code)}">${esc(message)}</p>${answerHtml(rest, data.sources)}`;
        } else {
          turn.innerHTML = answerHtml(data.answer, data.sources);
          const failed = data.citations.filter((c) => !c.ok).length;
          if (failed) turn.insertAdjacentHTML("beforeend", `<span class="note">${esc(t("chat.checks", { failed }))}</span>`);
          if (data.uncited_sentences) turn.insertAdjacentHTML("beforeend", `<span class="note">${esc(t("chat.uncited", { n: data.uncited_sentences }))}</span>`);
        }
        history.push({ role: "assistant", content: data.answer });
      });
    });
    if (!finished) throw new Error("the answer stopped before it was complete");
  } catch (err) {
    turn.className = "turn assistant error";
    turn.innerHTML = `<b>${esc(t("chat.error"))}:</b> ${esc(err.message)}`;
    history.pop();
  } finally {
    $("send").disabled = false;
    $("question").focus();
  }
}

document.addEventListener("DOMContentLoaded", () => {
  header("/chat");
  // the question box's height, for scrolling a turn into sight above it where it is pinned over the page
  const form = $("ask-form");
  new ResizeObserver(() => form.parentElement.style.setProperty("--ask-height", `${form.offsetHeight + 8}px`)).observe(form);
  $("ask-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = $("question").value.trim();
    if (!q) return;
    $("question").value = "";
    ask(q);
  });
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("ask-form").requestSubmit(); }
  });
  const q = new URLSearchParams(location.search).get("q");
  if (q) ask(q);
});
