// The philologist's desk: a word's concordance (a click opens the reader at the line), its collocates (a click
// shows their lines) and its frequency profile (bars per layer, collection and book, drawn here as SVG).
import { api, esc, header, readerHref } from "./common.js";

const $ = (id) => document.getElementById(id);
const PAGE = 50;
const COLOURS = { mula: "#1f6f8b", atthakatha: "#e07a1f", tika: "#8e5ea2", anya: "#7a7a7a" };
const n = (x) => Number(x).toLocaleString("en");
const state = { q: "", lemma: false, sort: "book", measure: "logdice", collocate: "", offset: 0 };

function query(extra = {}) {
  const p = new URLSearchParams({ q: state.q });
  if (state.lemma) p.set("lemma", "true");
  for (const [k, v] of Object.entries(extra)) if (v !== "" && v !== undefined) p.set(k, v);
  return p;
}

async function concordance() {
  const extra = { sort: state.sort, offset: state.offset, limit: PAGE, collocate: state.collocate };
  const data = await api(`/api/v3/concordance?${query(extra)}`);
  const rows = data.lines.map((l) => `<tr>
      <td class="coord"><a href="${readerHref(l.coordinate)}" title="open the reader here">${esc(l.coordinate)}</a></td>
      <td class="left"><span>${esc(l.left)}</span></td>
      <td class="node"><a href="${readerHref(l.coordinate)}">${esc(l.node)}</a></td>
      <td class="right">${esc(l.right)}</td></tr>`);
  $("kwic").tBodies[0].innerHTML = rows.join("");
  const total = data.lines_total;
  const last = state.offset + data.lines.length;
  $("conc-summary").textContent = `${total === null ? "…" : n(total)} lines in ${n(data.paragraphs)} paragraphs, sorted by ${data.sort.join(", ")}`;
  $("conc-forms").textContent = data.forms.slice(0, 20).map((f) => `${f.form} ${f.count}`).join(", ");
  $("page").textContent = data.lines.length ? `${state.offset + 1}–${last}` : "no lines";
  $("prev").disabled = state.offset === 0;
  $("next").disabled = total !== null ? last >= total : data.lines.length < PAGE;
  $("with").textContent = state.collocate ? `with ${state.collocate}` : "";
  const file = (format) => `/api/v3/concordance?${query({ sort: state.sort, collocate: state.collocate, format })}`;
  $("tsv").href = file("tsv");
  $("csv").href = file("csv");
  $("concordance-section").hidden = false;
}

async function collocates() {
  const data = await api(`/api/v3/collocates?${query({ measure: state.measure, limit: 40 })}`);
  $("measure-name").textContent = data.measure;
  $("collocates").tBodies[0].innerHTML = data.collocates.map((c, i) => `<tr>
      <td>${i + 1}</td><td><a href="#" data-collocate="${esc(c.lemma)}">${esc(c.lemma)}</a></td><td>${c.score.toFixed(2)}</td>
      <td>${c.cooccurrences}</td><td>${c.frequency}</td><td>${esc(c.forms.slice(0, 4).map((f) => `${f.form} ${f.count}`).join(", "))}</td></tr>`).join("");
  $("coll-summary").textContent = `${n(data.nodes)} occurrences, ±${data.window} words, ${n(data.candidates)} lemmas seen, ${n(data.corpus_words)} words in the corpus`;
  $("collocates-section").hidden = false;
}

/** Bars of occurrences per 10,000 words: the layers, the collections, the books holding the word. */
function bars(data) {
  const groups = [["per layer", data.layers], ["per collection", data.collections], ["per book holding it", data.books.filter((b) => b.occurrences)]];
  const rowH = 20, labelW = 300, barW = 460;
  const max = Math.max(0.001, ...groups.flatMap(([, rows]) => rows.map((r) => r.per_10000)));
  let y = 0;
  const out = [];
  for (const [name, rows] of groups) {
    out.push(`<text x="0" y="${y + 15}" font-weight="700">${esc(name)}</text>`);
    y += 22;
    for (const r of rows) {
      const w = r.occurrences ? Math.max(1, (r.per_10000 / max) * barW) : 0;
      const label = name === "per book holding it" ? `${r.key} ${r.title}` : r.title;
      out.push(`<g class="bar" data-key="${esc(r.key)}"><title>${esc(`${label}: ${r.occurrences} in ${r.words} words`)}</title>
        <text x="${labelW - 8}" y="${y + 14}" text-anchor="end">${esc(label)}</text>
        <rect x="${labelW}" y="${y + 3}" width="${w}" height="${rowH - 6}" fill="${COLOURS[r.layer] || "gray"}"></rect>
        <text x="${labelW + w + 6}" y="${y + 14}">${r.per_10000}</text></g>`);
      y += rowH;
    }
    y += 10;
  }
  return `<svg class="bars" viewBox="0 0 ${labelW + barW + 70} ${y}" role="img" aria-label="occurrences per 10,000 words">${out.join("")}</svg>`;
}

async function profile() {
  const data = await api(`/api/v3/profile?${query()}`);
  $("prof-summary").textContent = `${n(data.occurrences)} occurrences, ${data.per_10000} per 10,000 of ${n(data.corpus_words)} words`;
  $("profile").innerHTML = bars(data);
  for (const format of ["csv", "png", "svg"]) $(`prof-${format}`).href = `/api/v3/profile?${query({ format })}`;
  $("profile-section").hidden = false;
}

async function run(all = true) {
  if (!state.q) return;
  $("status").textContent = "…";
  try {
    await Promise.all(all ? [concordance(), collocates(), profile()] : [concordance()]);
    $("status").textContent = "";
  } catch (err) {
    $("status").innerHTML = `<span class="banner error" role="alert">${esc(err.message)}</span>`;
  }
}

function remember() {
  const p = query({ sort: state.sort === "book" ? "" : state.sort, measure: state.measure === "logdice" ? "" : state.measure, collocate: state.collocate });
  history.pushState(null, "", `/desk?${p}`);
}

document.addEventListener("DOMContentLoaded", () => {
  header("/desk");
  const p = new URLSearchParams(location.search);
  Object.assign(state, {
    q: p.get("q") || "", lemma: ["true", "1"].includes(p.get("lemma")), sort: p.get("sort") || "book",
    measure: p.get("measure") || "logdice", collocate: p.get("collocate") || "",
  });
  $("q").value = state.q;
  $("lemma").checked = state.lemma;
  $("sort").value = state.sort;
  $("measure").value = state.measure;
  $("desk-form").addEventListener("submit", (e) => {
    e.preventDefault();
    Object.assign(state, { q: $("q").value.trim(), lemma: $("lemma").checked, sort: $("sort").value, measure: $("measure").value, collocate: "", offset: 0 });
    remember();
    run();
  });
  $("sort").addEventListener("change", () => { state.sort = $("sort").value; state.offset = 0; remember(); run(false); });
  $("prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); run(false); });
  $("next").addEventListener("click", () => { state.offset += PAGE; run(false); });
  $("collocates").addEventListener("click", (e) => {
    const a = e.target.closest("a[data-collocate]");
    if (!a) return;
    e.preventDefault();
    state.collocate = state.collocate === a.dataset.collocate ? "" : a.dataset.collocate;
    state.offset = 0;
    remember();
    run(false);
    $("concordance-section").scrollIntoView();
  });
  run();
});
