import { api, applyText, CATEGORY_ORDER, categoryName, esc, header, readerHref, t } from "./common.js";

const PAGE_SIZE = 10;
const $ = (id) => document.getElementById(id);
const state = { q: "", mode: "fuzzy", lemma: false, bold: false, page_ref: "", category: "", book: "", page: 1 };

function readUrl() {
  const p = new URLSearchParams(location.search);
  state.q = p.get("q") || "";
  state.mode = p.get("mode") || "fuzzy";
  state.lemma = p.get("lemma") === "1";
  state.bold = p.get("bold") === "1";
  state.page_ref = p.get("page_ref") || "";
  state.category = p.get("category") || "";
  state.book = p.get("book") || "";
  state.page = Math.max(1, parseInt(p.get("page") || "1", 10) || 1);
  $("q").value = state.q;
  $("mode").value = state.mode;
  $("lemma").checked = state.lemma;
  $("bold").checked = state.bold;
  $("page-ref").value = state.page_ref;
}

function writeUrl() {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(state)) {
    if (v === true) p.set(k, "1");
    else if (v && !(k === "page" && v === 1) && !(k === "mode" && v === "fuzzy")) p.set(k, v);
  }
  history.pushState(null, "", `/?${p}`);
}

function toast(text) {
  const el = document.createElement("div");
  el.className = "toast";
  el.setAttribute("role", "status");
  el.textContent = text;
  document.body.append(el);
  setTimeout(() => el.remove(), 4000);
}

async function copyCitation(coordinate, fallback) {
  let citation = fallback;
  try {
    const data = await api(`/api/v3/get?coordinates=${encodeURIComponent(coordinate)}`);
    const item = data.items.find((i) => i.status === "ok");
    citation = item?.citations?.default || `${item?.book_title || ""} (${coordinate})`.trim();
  } catch { /* keep the fallback */ }
  try {
    await navigator.clipboard.writeText(citation);
  } catch { /* clipboard refused (insecure context): the toast shows the text to copy */ }
  toast(t("search.copied", { citation }));
}

function hitHtml(hit, weak = false) {
  const path = hit.path?.length ? hit.path.join(" › ") : "";
  const score = hit.confidence != null ? ` · ${hit.confidence.toFixed(2)}` : "";
  return `<article class="hit${weak ? " weak" : ""}">
    <header><span class="badge ${esc(hit.category)}">${esc(categoryName(hit.category))}</span>
      ${hit.sutta ? `<b class="sutta" title="${esc(hit.sutta_title_pali || "")}">${esc(hit.sutta)}${hit.sutta_title ? ` ${esc(hit.sutta_title)}` : ""}${hit.sutta_title_zh ? ` · ${esc(hit.sutta_title_zh)}` : ""}</b>` : ""}
      <b>${esc(hit.book_title)}</b><span class="path">${esc(path)}</span>
      <a class="coord" href="${esc(readerHref(hit.coordinate))}">${esc(hit.coordinate)}</a>
      <span class="path">${esc(hit.channel)}${score}</span></header>
    ${hit.sutta_summary ? `<p class="blurb">${esc(hit.sutta_summary)}</p>` : ""}
    <p>${hit.snippet}</p>
    ${(hit.translations || []).map((tr) => `<p class="aside" lang="${esc(tr.language)}"><span class="path">${esc(tr.channel)}</span> ${tr.snippet}</p>`).join("")}
    <div><a href="${esc(readerHref(hit.coordinate))}" data-t="search.read"></a> ·
      <button type="button" class="plain copy" data-coordinate="${esc(hit.coordinate)}" data-fallback="${esc(`${hit.book_title} (${hit.coordinate})`)}" data-t="search.copy"></button>
      ${hit.page_refs?.length ? `<span class="path">${esc(hit.page_refs.slice(0, 6).join(" "))}</span>` : ""}</div>
  </article>`;
}

function facetHtml(title, field, buckets, label) {
  if (!buckets?.length) return "";
  const items = buckets.slice(0, 25).map((b) => {
    const on = state[field] === b.key;
    return `<li><button type="button" data-field="${field}" data-key="${esc(b.key)}" aria-pressed="${on}">
      <span>${esc(label(b))}</span><span>${b.count}</span></button></li>`;
  });
  return `<h2 data-t="${title}"></h2><ul>${items.join("")}</ul>`;
}

async function search() {
  const q = state.q.trim();
  if (!q && !state.page_ref) return;
  const p = new URLSearchParams({ search_mode: state.mode, page: state.page, page_size: PAGE_SIZE });
  if (state.lemma && q) p.set("lemma", q);
  else p.set("q", q);
  if (state.bold) p.set("bold", "true");
  if (state.page_ref) p.set("page_refs", state.page_ref);
  if (state.category) p.set("category", state.category);
  if (state.book) p.set("book", state.book);
  $("status").textContent = "…";
  $("outcome").innerHTML = "";
  let body;
  try {
    const response = await fetch(`/api/v3/search?${p}`);
    body = await response.json();
    if (!body.success) throw new Error(body.error.message);
  } catch (err) {
    $("status").textContent = "";
    $("results").innerHTML = "";
    $("outcome").innerHTML = `<div class="banner error" role="alert">${esc(err.message)}</div>`;
    return;
  }
  const data = body.data;
  const info = body.query_info;
  $("status").textContent = t("search.results", { total: data.total, took: Math.round(data.took) });
  const forms = info.lemma?.forms || info.forms || [];
  if (forms.length) $("status").insertAdjacentHTML("beforeend", `<div class="forms">${esc(t("search.forms", { n: forms.length }))} ${esc(forms.join(", "))}</div>`);
  if (data.outcome === "not_found") {
    $("outcome").innerHTML = `<div class="banner refusal" role="status"><b data-t="search.notfound"></b> — ${esc(data.message || "")}<br><span data-t="search.weak"></span></div>`;
  } else if (data.outcome === "unattested_form") {
    $("outcome").innerHTML = `<div class="banner refusal" role="status"><span data-t="search.unattested"></span> ${esc(data.suggestions.join(", "))}</div>`;
  } else if (!data.results.length && data.suggestions?.length) {
    const links = data.suggestions.map((s) => `<a href="/?q=${encodeURIComponent(s)}">${esc(s)}</a>`).join(", ");
    $("outcome").innerHTML = `<div class="banner" role="status"><span data-t="search.didyoumean"></span> ${links}</div>`;
  } else if (!data.results.length) {
    $("outcome").innerHTML = `<div class="banner" data-t="search.none"></div>`;
  }
  $("results").innerHTML = data.results.map((h) => hitHtml(h)).join("") + (data.weak || []).map((h) => hitHtml(h, true)).join("");
  const aggs = data.aggregations || {};
  const cats = [...(aggs.category || [])].sort((a, b) => CATEGORY_ORDER.indexOf(a.key) - CATEGORY_ORDER.indexOf(b.key));
  $("facets").innerHTML =
    facetHtml("facet.category", "category", cats, (b) => categoryName(b.key)) +
    facetHtml("facet.book", "book", aggs.book, (b) => b.title || b.key) +
    (state.category || state.book ? `<p><button type="button" class="plain" id="clear" data-t="facet.clear"></button></p>` : "");
  const pages = Math.max(1, Math.ceil(Math.min(data.total, 10000) / PAGE_SIZE));
  $("pager").innerHTML = data.total > PAGE_SIZE
    ? `<button type="button" class="plain" id="prev" ${state.page <= 1 ? "disabled" : ""} data-t="search.prev"></button>
       <span>${esc(t("search.page", { page: state.page, pages }))}</span>
       <button type="button" class="plain" id="next" ${state.page >= pages ? "disabled" : ""} data-t="search.next"></button>`
    : "";
  $("dist-link").href = `/dist?w=${encodeURIComponent(q)}`;
  applyText(document.querySelector("main"));
}

function go(changes) {
  Object.assign(state, changes);
  writeUrl();
  search();
}

// --- suggestions ---------------------------------------------------------------------------------

let timer = null;
let active = -1;

function closeSuggestions() {
  $("suggestions").hidden = true;
  $("q").setAttribute("aria-expanded", "false");
  $("q").removeAttribute("aria-activedescendant");
  active = -1;
}

function highlight(i) {
  const items = [...$("suggestions").children];
  active = (i + items.length) % items.length;
  items.forEach((li, k) => li.setAttribute("aria-selected", String(k === active)));
  $("q").setAttribute("aria-activedescendant", items[active].id);
}

async function suggest() {
  const q = $("q").value.trim();
  if (q.length < 2) return closeSuggestions();
  try {
    const data = await api(`/api/v3/search-suggest?q=${encodeURIComponent(q)}&limit=8`);
    if ($("q").value.trim() !== q) return;
    const list = $("suggestions");
    list.innerHTML = data.suggestions.map((s, i) =>
      `<li role="option" id="sug-${i}" aria-selected="false" data-text="${esc(s.text)}"><span>${esc(s.text)}</span><span class="count">${s.count || esc(s.note || "")}</span></li>`).join("");
    list.hidden = !data.suggestions.length;
    $("q").setAttribute("aria-expanded", String(!list.hidden));
    active = -1;
  } catch { closeSuggestions(); }
}

function pick(text) {
  $("q").value = text;
  closeSuggestions();
  go({ q: text, page: 1 });
}

document.addEventListener("DOMContentLoaded", () => {
  header("/");
  readUrl();
  $("q").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(suggest, 150); });
  $("q").addEventListener("keydown", (e) => {
    const open = !$("suggestions").hidden;
    if (e.key === "ArrowDown" && open) { e.preventDefault(); highlight(active + 1); }
    else if (e.key === "ArrowUp" && open) { e.preventDefault(); highlight(active - 1); }
    else if (e.key === "Enter" && open && active >= 0) { e.preventDefault(); pick($("suggestions").children[active].dataset.text); }
    else if (e.key === "Escape") closeSuggestions();
  });
  $("suggestions").addEventListener("mousedown", (e) => {
    const li = e.target.closest("li");
    if (li) { e.preventDefault(); pick(li.dataset.text); }
  });
  $("q").addEventListener("blur", () => setTimeout(closeSuggestions, 100));
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    closeSuggestions();
    go({ q: $("q").value, mode: $("mode").value, lemma: $("lemma").checked, bold: $("bold").checked, page_ref: $("page-ref").value.trim(), page: 1 });
  });
  for (const id of ["mode", "lemma", "bold"]) $(id).addEventListener("change", () => $("search-form").requestSubmit());
  $("page-ref").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); $("search-form").requestSubmit(); } });
  document.addEventListener("click", (e) => {
    const facet = e.target.closest("button[data-field]");
    if (facet) return go({ [facet.dataset.field]: facet.getAttribute("aria-pressed") === "true" ? "" : facet.dataset.key, page: 1 });
    const copy = e.target.closest("button.copy");
    if (copy) return copyCitation(copy.dataset.coordinate, copy.dataset.fallback);
    if (e.target.id === "clear") return go({ category: "", book: "", page: 1 });
    if (e.target.id === "prev") return go({ page: state.page - 1 });
    if (e.target.id === "next") return go({ page: state.page + 1 });
  });
  window.addEventListener("popstate", () => { readUrl(); search(); });
  search();
});
