import { api, ApiError, applyText, categoryName, esc, header, readerHref, t } from "./common.js";

const $ = (id) => document.getElementById(id);
const MODES = ["fuzzy", "exact", "semantic", "hybrid"];
let polling = null;

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
  const what = task.kind === "delete" ? `delete ${task.params.corpus}/${task.params.book}` : `${task.params.source} ${task.params.upload || task.params.path}`;
  const detail = task.error ? esc(task.error) : task.result ? esc(`${task.result.passages ?? ""} passages${task.result.skipped?.length ? `, ${task.result.skipped.length} skipped` : ""}`) : esc(task.message);
  return `<tr data-task="${esc(task.id)}" data-state="${esc(task.state)}"><td>${esc(task.id)}</td><td>${esc(what)}</td>
    <td class="state">${esc(task.state)}</td><td>${progress} ${task.passages ? `${task.passages} passages` : ""}</td><td>${detail}</td></tr>`;
}

async function loadTasks() {
  const tasks = await admin("/api/v1/documents/tasks?limit=20");
  $("tasks").innerHTML = `<tr><th data-t="col.task"></th><th></th><th data-t="col.state"></th><th data-t="col.progress"></th><th></th></tr>` + tasks.map(taskRow).join("");
  applyText($("tasks"));
  const busy = tasks.some((x) => x.state === "queued" || x.state === "running");
  clearTimeout(polling);
  if (busy) polling = setTimeout(() => loadTasks().then((stillBusy) => stillBusy || loadAll()), 500);
  return busy;
}

async function loadOverview() {
  const o = await admin("/api/v1/overview");
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
  const docs = await admin("/api/v1/documents");
  $("documents").innerHTML = `<tr><th data-t="col.key"></th><th data-t="col.title"></th><th data-t="col.channels"></th><th data-t="col.passages"></th><th data-t="col.ingested"></th><th></th></tr>` +
    docs.map((d) => `<tr data-key="${esc(d.key)}"><td>${esc(d.key)}</td><td>${esc(d.title)}</td><td>${esc(d.channels.map((c) => c.channel).join(", "))}</td>
      <td>${d.passages}</td><td>${esc(d.ingested_at)}</td>
      <td><button type="button" class="plain details" data-t="admin.details"></button> <button type="button" class="plain delete" data-t="admin.delete"></button></td></tr>`).join("");
  applyText($("documents"));
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

document.addEventListener("DOMContentLoaded", () => {
  header("/admin");
  $("key").value = key();
  $("key-form").addEventListener("submit", (e) => {
    e.preventDefault();
    localStorage.setItem("gantha.adminKey", $("key").value);
    loadAll();
  });
  $("add-form").addEventListener("submit", addSource);
  $("bench-form").addEventListener("submit", bench);
  $("documents").addEventListener("click", async (e) => {
    const row = e.target.closest("tr[data-key]");
    if (!row) return;
    const docKey = row.dataset.key;
    if (e.target.classList.contains("details")) {
      const d = await admin(`/api/v1/documents/${docKey}`);
      $("detail").innerHTML = `<div class="card"><b>${esc(d.title)}</b> ${esc(d.key)} · ${esc(categoryName(d.category))} · ${esc(d.tags.join(", "))}
        <table class="grid">${d.channels.map((c) => `<tr><td>${esc(c.channel)}</td><td>${esc(c.language)}</td><td>${c.passages}</td><td>${esc(c.source)}</td><td>${esc(c.ingested_at)}</td></tr>`).join("")}</table></div>`;
    } else if (e.target.classList.contains("delete") && confirm(t("admin.confirm", { key: docKey }))) {
      await admin(`/api/v1/documents/${docKey}`, { method: "DELETE" });
      loadTasks();
    }
  });
  if (key()) loadAll();
});
