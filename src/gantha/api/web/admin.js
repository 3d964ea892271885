import { api, ApiError, applyText, categoryName, esc, header, readerHref, t } from "./common.js";

const $ = (id) => document.getElementById(id);
const MODES = ["fuzzy", "exact", "semantic", "hybrid"];
let polling = null;
let docPage = 1;
const DOC_PAGE_SIZE = 50;

const key = () => localStorage.getItem("gantha.adminKey") || "";
const admin = (path, options = {}) => api(path, { ...options, headers: { ...(options.headers || {}), "X-API-Key": key() } });

function size(bytes) {
  const units = ["B", "KiB", "MiB", "GiB"];
  let i = 0;
  while (bytes >= 1024 && i < units.length - 1) { bytes /= 1024; i++; }
  return `${bytes.toFixed(i ? 1 : 0)} ${units[i]}`;
}

function taskRow(task) {
  const progress = task.total ? `<progress max="${task.total}" value="${task.done}"></progress> ${task.done}/${task.total}` : "";
  const what = task.kind === "delete" ? `delete ${task.params.corpus}/${task.params.book}`
    : ["classify", "summarize"].includes(task.kind) ? task.kind : `${task.params.source} ${task.params.upload || task.params.path}`;
  const detail = task.error ? esc(task.error) : task.result ? esc(task.kind === "summarize" ? `${task.result.nodes} nodes, ${task.result.written} written (${task.result.method})` : `${task.result.passages ?? ""} passages${task.result.skipped?.length ? `, ${task.result.skipped.length} skipped` : ""}`) : esc(task.message);
  return `<tr data-task="${esc(task.id)}" data-state="${esc(task.state)}"><td>${esc(task.id)}</td><td>${esc(what)}</td>
    <td class="state">${esc(task.state)}</td><td>${progress} ${task.passages ? `${task.passages} passages` : ""}</td><td>${detail}</td></tr>`;
}

async function loadTasks() {
  const tasks = (await admin("/api/v1/documents/tasks?page_size=20")).items;
  $("tasks").innerHTML = `<tr><th data-t="col.task"></th><th></th><th data-t="col.state"></th><th data-t="col.progress"></th><th></th></tr>` + tasks.map(taskRow).join("");
  applyText($("tasks"));
  const busy = tasks.some((x) => x.state === "queued" || x.state === "running");
  clearTimeout(polling);
  if (busy) polling = setTimeout(() => loadTasks().then((stillBusy) => stillBusy || loadAll()), 500);
  return busy;
}

async function loadOverview() {
  const o = await admin("/api/v1/knowledge/stats");
  $("cards").innerHTML = [
    [t("admin.passages"), o.passages.toLocaleString()],
    [t("admin.books"), o.books.toLocaleString()],
    [t("admin.size"), size(o.index_bytes)],
    [t("admin.corpora"), o.corpora.map((c) => `${c.corpus} (${c.books})`).join(", ")],
  ].map(([k, v]) => `<div class="card">${esc(k)}<b>${esc(v)}</b></div>`).join("");
  $("last").innerHTML = `<tr><th data-t="col.key"></th><th data-t="col.title"></th><th data-t="col.channels"></th><th data-t="col.passages"></th><th data-t="col.ingested"></th></tr>` +
    o.last_ingests.map((r) => `<tr><td>${esc(r.key)}</td><td>${esc(r.title)}</td><td>${esc(r.channel)}</td><td>${r.passages}</td><td>${esc(r.ingested_at)}</td></tr>`).join("");
  $("taxonomy").innerHTML =
    `<div class="card"><b data-t="facet.category"></b><ul>${o.categories.map(([k, n]) => `<li>${esc(k ? categoryName(k) : "—")}: ${n}</li>`).join("")}</ul></div>` +
    `<div class="card"><b>tags</b><ul>${o.tags.map(([k, n]) => `<li>${esc(k)}: ${n}</li>`).join("")}</ul></div>`;
  applyText($("panels"));
}

async function loadDocuments() {
  const page = await admin(`/api/v1/documents?page=${docPage}&page_size=${DOC_PAGE_SIZE}`);
  const pages = Math.max(1, Math.ceil(page.total / DOC_PAGE_SIZE));
  if (docPage > pages) { docPage = pages; return loadDocuments(); }
  $("documents").innerHTML = `<tr><th data-t="col.key"></th><th data-t="col.title"></th><th data-t="col.channels"></th><th data-t="col.passages"></th><th data-t="col.ingested"></th><th></th></tr>` +
    page.items.map((d) => `<tr data-key="${esc(d.key)}"><td>${esc(d.key)}</td><td>${esc(d.title)}</td><td>${esc(d.channels.map((c) => c.channel).join(", "))}</td>
      <td>${d.passages}</td><td>${esc(d.ingested_at)}</td>
      <td><button type="button" class="plain details" data-t="admin.details"></button> <button type="button" class="plain delete" data-t="admin.delete"></button></td></tr>`).join("");
  $("doc-pager").innerHTML = pages > 1 ? `<button type="button" class="plain" data-step="-1" ${docPage <= 1 ? "disabled" : ""} data-t="search.prev"></button>
    <span>${esc(t("search.page", { page: docPage, pages }))} · ${page.total}</span>
    <button type="button" class="plain" data-step="1" ${docPage >= pages ? "disabled" : ""} data-t="search.next"></button>` : "";
  applyText($("documents"));
  applyText($("doc-pager"));
}

let categories = [];  // the taxonomy's categories, for fixing a node's topic

/** A book's or chapter's topic, its confidence, and a menu to fix it by hand. */
function topicOf(node) {
  if (!node.topic) return "";
  const fixable = /\/ch\d+$/.test(node.coordinate) || node.level === "book";
  const label = categories.find((c) => c.id === node.topic)?.label || node.topic;
  const shown = `<span class="topic" data-topic="${esc(node.topic)}">${esc(label)} · ${Math.round((node.topic_confidence || 0) * 100)} %</span>`;
  if (!fixable || !categories.length) return shown;
  const options = categories.map((c) => `<option value="${esc(c.id)}"${c.id === node.topic ? " selected" : ""}>${esc(c.label)}</option>`).join("");
  return `${shown} <select class="fix-topic" data-coordinate="${esc(node.coordinate)}" aria-label="topic">${options}</select>`;
}

/** One outline node and the nodes below it: title, level, size, topic, its summary. */
function outlineNode(node, top = false) {
  const size = `${node.paragraphs.toLocaleString()} ${t("col.passages").toLowerCase()} · ${node.characters.toLocaleString()} ${t("admin.chars")}`;
  const label = `<span class="node-title">${esc(node.title)}${node.title_zh ? ` · ${esc(node.title_zh)}` : ""}</span> <span class="path">${esc(node.level)}${node.sutta ? ` · ${esc(node.sutta)}` : ""} · ${esc(size)}</span>`;
  const summary = node.summary ? `<p class="summary">${esc(node.summary)}</p>` : "";
  const below = node.nodes.length ? `<ul>${node.nodes.map((n) => outlineNode(n)).join("")}</ul>` : "";
  const more = node.children > node.nodes.length ? `<p class="path">… ${node.children - node.nodes.length}</p>` : "";
  return `<li data-coordinate="${esc(node.coordinate)}" data-level="${esc(node.level)}"><details${top ? " open" : ""}>
    <summary>${label} <a class="path" href="${esc(readerHref(node.first || node.coordinate))}">${esc(node.coordinate)}</a> ${topicOf(node)}</summary>${summary}${below}${more}</details></li>`;
}

async function showDetail(docKey) {
  const [d, taxonomy] = await Promise.all([admin(`/api/v1/documents/${docKey}`), admin("/api/v1/knowledge/categories")]);
  categories = taxonomy.categories;
  const channels = `<table class="grid">${d.channels.map((c) => `<tr><td>${esc(c.channel)}</td><td>${esc(c.language)}</td><td>${c.passages}</td><td>${esc(c.source)}</td><td>${esc(c.ingested_at)}</td></tr>`).join("")}</table>`;
  const tree = d.outline;
  $("detail").innerHTML = `<div class="card"><b>${esc(d.title)}</b> ${esc(d.key)} · ${esc(categoryName(d.category))} · ${esc(d.tags.join(", "))}
    ${channels}<h3 data-t="admin.outline"></h3><p class="path">${tree.nodes} ${esc(t("admin.nodes"))}${tree.truncated ? " · …" : ""}</p>
    <ul class="outline" id="outline">${outlineNode(tree.root, true)}</ul></div>`;
  applyText($("detail"));
  $("detail").querySelectorAll("select.fix-topic").forEach((menu) => menu.addEventListener("change", async () => {
    await admin(`/api/v1/topics/${menu.dataset.coordinate}`, {
      method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ topic: menu.value }),
    });
    showDetail(docKey);
  }));
}

async function loadAll() {
  try {
    await Promise.all([loadOverview(), loadDocuments(), loadTasks()]);
    $("panels").hidden = false;
    $("key-status").textContent = "";
  } catch (err) {
    $("panels").hidden = true;
    $("key-status").textContent = err instanceof ApiError && err.status === 401 ? t("admin.unauthorized") : err.message;
  }
}

/** Whether the admin API is on: asked without a key, it answers 401 when on, 503 admin_disabled when off. */
async function adminOn() {
  try {
    await api("/api/v1/knowledge/stats");
  } catch (err) {
    return !(err instanceof ApiError && err.code === "admin_disabled");
  }
  return true;
}

async function addSource(e) {
  e.preventDefault();
  const file = $("file").files[0];
  let options;
  if (file) {
    const form = new FormData();
    form.append("file", file);
    if ($("source").value === "cst" || $("source").value === "markdown") form.append("source", file.name.match(/\.xml(\.gz)?$/i) ? "cst" : "markdown");
    options = { method: "POST", body: form };
  } else {
    options = { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ source: $("source").value, path: $("path").value.trim() }) };
  }
  try {
    const task = await admin("/api/v1/documents", options);
    $("add-status").textContent = `task ${task.id}: ${task.state}`;
    $("file").value = "";
    loadTasks();
  } catch (err) {
    $("add-status").textContent = err.message;
  }
}

async function bench(e) {
  e.preventDefault();
  const q = $("bench-q").value.trim();
  if (!q) return;
  const columns = await Promise.all(MODES.map(async (mode) => {
    try {
      const r = await fetch(`/api/v3/search?${new URLSearchParams({ q, search_mode: mode, page_size: 8 })}`).then((x) => x.json());
      if (!r.success) return `<section data-mode="${mode}"><h3>${mode}</h3><p>${esc(r.error.message)}</p></section>`;
      const d = r.data;
      const hits = (d.results.length ? d.results : d.weak).map((h) =>
        `<li><a href="${esc(readerHref(h.coordinate))}">${esc(h.coordinate)}</a> <span class="path">${h.score.toFixed(3)}${h.confidence != null ? ` · conf ${h.confidence.toFixed(2)}` : ""}</span></li>`).join("");
      return `<section data-mode="${mode}"><h3>${mode}</h3><p class="path">${esc(d.outcome)} · ${d.total} · ${Math.round(d.took)} ms</p><ol>${hits}</ol></section>`;
    } catch (err) {
      return `<section data-mode="${mode}"><h3>${mode}</h3><p>${esc(err.message)}</p></section>`;
    }
  }));
  $("bench").innerHTML = columns.join("");
}

document.addEventListener("DOMContentLoaded", async () => {
  header("/admin");
  if (!(await adminOn())) {  // say so, and how to turn it on, instead of asking for a key
    $("admin-off").hidden = false;
    return;
  }
  $("key-form").hidden = false;
  $("key").value = key();
  $("key-form").addEventListener("submit", (e) => {
    e.preventDefault();
    localStorage.setItem("gantha.adminKey", $("key").value);
    loadAll();
  });
  $("add-form").addEventListener("submit", addSource);
  $("bench-form").addEventListener("submit", bench);
  $("doc-pager").addEventListener("click", (e) => {
    const step = Number(e.target.dataset.step || 0);
    if (!step) return;
    docPage += step;
    loadDocuments();
  });
  $("documents").addEventListener("click", async (e) => {
    const row = e.target.closest("tr[data-key]");
    if (!row) return;
    const docKey = row.dataset.key;
    if (e.target.classList.contains("details")) {
      showDetail(docKey).catch((err) => { $("detail").textContent = err.message; });
    } else if (e.target.classList.contains("delete") && confirm(t("admin.confirm", { key: docKey }))) {
      await admin(`/api/v1/documents/${docKey}`, { method: "DELETE" });
      loadTasks();
    }
  });
  if (key()) loadAll();
});
