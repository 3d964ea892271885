import { api, displayHtml, esc, header, readerHref, t } from "./common.js";

const $ = (id) => document.getElementById(id);
const coordinate = decodeURIComponent(location.pathname.replace(/^\/read\//, ""));
const paragraphOf = (c) => c.replace(/\.s\d+$/, ""); // a sentence coordinate opens its paragraph
const CHANNEL_NAMES = { pali: "Pali (CST)", my: "Burmese · မြန်မာ", en: "English", "pli-ms": "Pali (SuttaCentral)", kjv: "KJV", cuv: "和合本 (CUV)" };
const channelName = (c) => (c === "pali" ? `${t("read.pali")} (CST)` : CHANNEL_NAMES[c] || c);

function pageMarks(starts) {
  return (starts || []).map((p) => `<span class="pb" title="edition page">${esc(p)}</span>`).join("");
}

async function chapter(channel, script) {
  const p = new URLSearchParams({ coordinate: paragraphOf(coordinate), confirm: "true", channel, script });
  return api(`/api/v3/chapter?${p}`);
}

async function load() {
  const script = localStorage.getItem("gantha.script") || "Roman";
  $("script").value = script;
  $("status").textContent = "…";
  let versions;
  try {
    versions = await api(`/api/v3/versions?coordinate=${encodeURIComponent(paragraphOf(coordinate))}`);
  } catch (err) {
    $("status").textContent = "";
    $("message").innerHTML = `<div class="banner error" role="alert">${esc(err.message)}</div>`;
    return;
  }
  // the channels present here; for the Tipiṭaka also Burmese and English, marked where they are missing
  const corpus = versions.coordinate.split("/")[0]; // a sutta reference (MN 10) resolves to its first paragraph
  const order = ["pali", "my", "en"];
  versions.channels = versions.channels
    .filter((c) => c.status !== "missing" || (corpus === "cst" && order.includes(c.channel)))
    .sort((a, b) => (order.indexOf(a.channel) + 1 || 9) - (order.indexOf(b.channel) + 1 || 9));
  const channels = versions.channels.map((c) => c.channel);
  const chapters = await Promise.all(channels.map((ch) => chapter(ch, script).catch(() => null)));
  const main = chapters[0];
  $("status").textContent = "";
  if (!main) return;
  document.title = `${main.book_title} — ${main.chapter} — gantha`;
  $("title").textContent = `${main.book_title} › ${main.chapter}`;
  $("heads").innerHTML = versions.channels.map((c) => `<th scope="col" title="${esc(c.author)}">${esc(channelName(c.channel))}</th>`).join("");
  if (!main.passages) {
    // too large to show whole: the paragraph alone, with what the other channels have
    $("message").innerHTML = `<div class="banner">${esc(t("read.toolarge"))}</div>`;
    const got = await api(`/api/v3/get?coordinates=${encodeURIComponent(paragraphOf(coordinate))}&channel=${channels.join(",")}`);
    main.passages = [{ coordinate: paragraphOf(coordinate), para: paragraphOf(coordinate).split("/").pop(), kind: "bodytext", display: got.items[0]?.display ?? got.items[0]?.text ?? "", page_starts: [] }];
    chapters.splice(1, chapters.length - 1, ...got.items.slice(1).map((it) => ({ passages: it.status === "ok" ? [{ coordinate: it.coordinate, display: it.display ?? it.text }] : [] })));
  }
  const byChannel = chapters.map((c) => new Map((c?.passages || []).map((p) => [p.coordinate, p])));
  const target = paragraphOf(versions.coordinate);
  $("rows").innerHTML = main.passages.map((p) => {
    const cells = versions.channels.map((c, i) => {
      const q = byChannel[i].get(p.coordinate);
      const label = channelName(c.channel);
      if (!q) return `<td data-channel="${esc(label)}" class="missing">${esc(t("read.missing"))}</td>`;
      const lead = i === 0
        ? `<a class="num" href="${esc(readerHref(p.coordinate))}" title="${esc(t("read.link"))}">${esc(p.para)}</a>${pageMarks(p.page_starts)}`
        : "";
      return `<td data-channel="${esc(label)}" class="kind-${esc(p.kind)}" lang="${esc(c.language === "pali" ? "pi" : c.language)}">${lead}${displayHtml(q.display)}</td>`;
    });
    const id = `p-${p.para}`;
    return `<tr id="${esc(id)}" class="${p.coordinate === target ? "target" : ""}">${cells.join("")}</tr>`;
  }).join("");
  document.querySelector("tr.target")?.scrollIntoView({ block: "center" });
}

document.addEventListener("DOMContentLoaded", () => {
  header("");
  $("script").addEventListener("change", () => {
    localStorage.setItem("gantha.script", $("script").value);
    load();
  });
  load();
});
