import { api, CATEGORY_ORDER, categoryName, esc, header, t } from "./common.js";

const $ = (id) => document.getElementById(id);
const COLOURS = { mula: "var(--mula)", atthakatha: "var(--atthakatha)", tika: "var(--tika)", anya: "var(--anya)" };

/** Horizontal bars, one per book, grouped by category; each bar opens the search filtered to its book. */
function chart(word, expand, data) {
  const groups = CATEGORY_ORDER.map((c) => [c, data.books.filter((b) => b.category === c)]).filter(([, books]) => books.length);
  const rowH = 22, labelW = 260, barW = 520, gap = 26;
  const max = Math.max(1, ...data.books.map((b) => b.count));
  let y = 0;
  const rows = [];
  for (const [category, books] of groups) {
    rows.push(`<text x="0" y="${y + 16}" class="group" font-weight="700">${esc(categoryName(category))} (${data.by_category[category] ?? ""})</text>`);
    y += gap;
    for (const b of books) {
      const w = Math.max(2, (b.count / max) * barW);
      const q = new URLSearchParams({ q: word, book: b.book });
      if (expand) q.set("lemma", "1");
      rows.push(`<a href="/?${q}" aria-label="${esc(`${b.title}: ${b.count}`)}">
        <text x="${labelW - 8}" y="${y + 15}" text-anchor="end" font-size="13">${esc(b.title)}</text>
        <rect x="${labelW}" y="${y + 3}" width="${w}" height="${rowH - 6}" fill="${COLOURS[category] || "gray"}" data-book="${esc(b.book)}"></rect>
        <text x="${labelW + w + 6}" y="${y + 15}" font-size="12">${b.count}</text></a>`);
      y += rowH;
    }
    y += 8;
  }
  const legend = groups.map(([c]) => `<span data-category="${esc(c)}">${esc(categoryName(c))}</span>`).join("");
  return `<div class="legend">${legend}</div>
    <svg viewBox="0 0 ${labelW + barW + 60} ${y}" role="img" aria-label="${esc(t("dist.title"))}">${rows.join("")}</svg>`;
}

async function show(word, expand) {
  if (!word) return;
  $("status").textContent = "…";
  try {
    const p = new URLSearchParams(expand ? { lemma: word } : { forms: word });
    const data = await api(`/api/v3/dist?${p}`);
    $("status").textContent = t("dist.total", { total: data.total, books: data.books.length }) + (data.forms.length ? ` · ${data.forms.join(", ")}` : "");
    $("chart").innerHTML = chart(word, expand, data);
    for (const el of $("chart").querySelectorAll(".legend span")) {
      el.style.setProperty("--c", COLOURS[el.dataset.category] || "gray"); // through the CSSOM: no inline style
    }
  } catch (err) {
    $("status").textContent = "";
    $("chart").innerHTML = `<div class="banner error" role="alert">${esc(err.message)}</div>`;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  header("/dist");
  const p = new URLSearchParams(location.search);
  $("word").value = p.get("w") || "";
  $("expand").checked = p.get("forms") !== "1";
  $("dist-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const w = $("word").value.trim();
    history.pushState(null, "", `/dist?w=${encodeURIComponent(w)}${$("expand").checked ? "" : "&forms=1"}`);
    show(w, $("expand").checked);
  });
  show($("word").value.trim(), $("expand").checked);
});
