import { api, displayHtml, esc, header, readerHref, t } from "./common.js";

const $ = (id) => document.getElementById(id);
const coordinate = decodeURIComponent(location.pathname.replace(/^\/read\//, ""));
const paragraphOf = (c) => c.replace(/\.s\d+$/, ""); // a sentence coordinate opens its paragraph
const CHANNEL_NAMES = { pali: "Pali (CST)", my: "Burmese · မြန်မာ", en: "English", "pli-ms": "Pali (SuttaCentral)", kjv: "KJV", cuv: "和合本 (CUV)", taisho: "漢譯 (Taishō)" };
const hanzi = () => localStorage.getItem("gantha.hanzi") || "Hant"; // the Āgamas traditional as written, or simplified
const channelName = (c) => (c === "pali" ? `${t("read.pali")} (CST)` : CHANNEL_NAMES[c] || c);

function pageMarks(starts) {
  return (starts || []).map((p) => `<span class="pb" title="edition page">${esc(p)}</span>`).join("");
}

async function chapter(channel, script, at = paragraphOf(coordinate)) {
  const p = new URLSearchParams({ coordinate: at, confirm: "true", channel, script: channel === "taisho" ? hanzi() : script });
  return api(`/api/v3/chapter?${p}`);
}

/** A sutta's parallels in the other canon beside it: an Āgama sūtra's Chinese, or a sutta's Pali and English. */
async function showParallel(parallels, chosen = 0) {
  const panel = $("parallel");
  panel.hidden = !parallels?.length;
  if (panel.hidden) return;
  const p = parallels[chosen];
  const agama = p.coordinate.startsWith("agama/");
  $("hanzi-label").hidden = !agama;
  $("parallel-title").textContent = t("read.parallel", { reference: p.reference, title: p.title || "" });
  $("parallel-choices").innerHTML = parallels.map((x, i) =>
    `<button type="button" class="plain" data-parallel="${i}" aria-pressed="${i === chosen}">${esc(x.reference)}</button>`).join(" ")
    + ` <a href="${esc(readerHref(p.coordinate))}">${esc(t("read.open"))}</a> <span class="reason">${esc(p.source)}</span>`;
  const channels = agama ? ["taisho"] : ["pali", "en"];
  const got = await Promise.all(channels.map((ch) => chapter(ch, "Roman", p.reference).catch(() => null)));
  const main = got[0];
  if (!main?.passages) { $("parallel-rows").innerHTML = ""; return; }
  const byChannel = got.map((c) => new Map((c?.passages || []).map((x) => [x.coordinate, x])));
  $("parallel-heads").innerHTML = channels.map((c) => `<th scope="col">${esc(channelName(c))}</th>`).join("");
  $("parallel-rows").innerHTML = main.passages.map((x) => `<tr>${channels.map((c, i) => {
    const q = byChannel[i].get(x.coordinate);
    const lang = c === "taisho" ? (hanzi() === "Hans" ? "zh-Hans" : "zh-Hant") : c === "pali" ? "pi" : c;
    return q ? `<td lang="${lang}"><span class="num">${esc(x.para)}</span> ${displayHtml(q.display)}</td>` : `<td class="missing">${esc(t("read.missing"))}</td>`;
  }).join("")}</tr>`).join("");
  panel.dataset.chosen = String(chosen);
}
let parallelsShown = [];

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
  $("title").textContent = `${main.book_title} › ${main.chapter}${main.title_zh ? ` · ${main.title_zh}` : ""}`;
  $("blurb").hidden = !main.summary; // SuttaCentral's summary of the sutta or chapter, where it has one
  $("blurb").textContent = main.summary || "";
  $("heads").innerHTML = versions.channels.map((c) => `<th scope="col" title="${esc(c.author)}">${esc(channelName(c.channel))}</th>`).join("");
  if (!main.passages) {
    // too large to show whole: the paragraph alone, with what the other channels have
    $("message").innerHTML = `<div class="banner">${esc(t("read.toolarge"))}</div>`;
    const got = await api(`/api/v3/get?coordinates=${encodeURIComponent(paragraphOf(coordinate))}&channel=${channels.join(",")}&display=true`);
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
        ? `<a class="num" href="${esc(readerHref(p.coordinate))}" title="${esc(t("read.link"))}">${esc(p.para)}</a>`
          + `<button type="button" class="plain linksbtn" data-coordinate="${esc(p.coordinate)}" title="${esc(t("links.open"))}" aria-label="${esc(t("links.open"))}">⇄</button>`
          + pageMarks(p.page_starts)
        : "";
      const lang = c.channel === "taisho" ? (hanzi() === "Hans" ? "zh-Hans" : "zh-Hant") : c.language === "pali" ? "pi" : c.language;
      return `<td data-channel="${esc(label)}" class="kind-${esc(p.kind)}" lang="${esc(lang)}">${lead}${displayHtml(q.display)}</td>`;
    });
    const id = `p-${p.para}`;
    return `<tr id="${esc(id)}" class="${p.coordinate === target ? "target" : ""}">${cells.join("")}</tr>`;
  }).join("");
  document.querySelector("tr.target")?.scrollIntoView({ block: "center" });
  parallelsShown = main.parallels || [];
  showParallel(parallelsShown);
  if (corpus === "cst" || corpus === "agama") showLinks(target);
}

const KINDS = ["root", "commentary", "subcommentary", "cites", "cited_by", "parallels", "variants"];
const PAGE = 20;

let linksAsked = "";  // the paragraph whose links were asked for last: an earlier answer arriving late is dropped

/** The links panel: how many links of each kind a paragraph has; a kind's list opens beside the text. */
async function showLinks(coord) {
  const panel = $("links");
  if (coord === linksAsked) return;  // already shown or on its way: a list the reader opened stays open
  linksAsked = coord;
  let res;
  try {
    res = await api(`/api/v3/links?coordinate=${encodeURIComponent(coord)}&limit=0`);
  } catch (err) {
    if (coord !== linksAsked) return;
    linksAsked = "";  // asking again may succeed
    panel.hidden = false;
    $("link-counts").innerHTML = `<div class="banner error" role="alert">${esc(err.message)}</div>`;
    return;
  }
  if (coord !== linksAsked) return;
  panel.hidden = false;
  panel.dataset.coordinate = coord;
  $("links-title").textContent = t("links.of", { coordinate: coord });
  $("link-items").innerHTML = "";
  const found = KINDS.filter((k) => res[k]?.total);
  $("link-counts").innerHTML = found.length
    ? found.map((k) => `<button type="button" class="plain" data-kind="${k}" aria-pressed="false">${esc(t(`kind.${k}`))} ${res[k].total}</button>`).join(" · ")
    : esc(t("links.none"));
}

function linkItem(item) {
  const where = item.coordinate
    ? `<a href="${esc(readerHref(item.coordinate))}">${esc(item.coordinate)}</a>`
    : `<a href="${esc(item.url)}" rel="noopener">${esc(item.reference)}</a>`;
  const ref = item.reference && item.coordinate ? ` <span class="sutta">${esc(item.reference)}</span>` : "";
  const badge = item.curated ? ` <span class="badge">${esc(t("links.curated"))}</span>` : "";
  const body = item.shared ? `<p><span class="badge">${esc(t("links.shared"))}</span> ${esc(item.shared)}</p>`
    : item.text ? `<p>${esc(item.text)}</p>` : "";
  return `<li>${where}${ref}${badge} <span class="reason">${esc(item.reason)}</span>${body}</li>`;
}

async function showKind(kind, offset) {
  const coord = $("links").dataset.coordinate;
  const res = await api(`/api/v3/links?coordinate=${encodeURIComponent(coord)}&kind=${kind}&limit=${PAGE}&offset=${offset}`);
  const pressed = $("link-counts").querySelector("button[aria-pressed=true]")?.dataset.kind;
  if ($("links").dataset.coordinate !== coord || pressed !== kind) return;  // another list was opened meanwhile
  const list = res[kind];
  const items = list.items.map(linkItem).join("");
  const more = list.offset + list.items.length < list.total
    ? `<button type="button" class="plain" data-more="${kind}" data-offset="${list.offset + PAGE}">${esc(t("links.more"))}</button>` : "";
  if (offset === 0) {
    $("link-items").innerHTML = `<h3>${esc(t(`kind.${kind}`))} (${list.total})</h3><ol class="link-list" data-kind="${kind}">${items}</ol>${more}`;
  } else {
    $("link-items").querySelector("ol").insertAdjacentHTML("beforeend", items);
    $("link-items").querySelector("[data-more]")?.remove();
    $("link-items").insertAdjacentHTML("beforeend", more);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  header("");
  $("rows").addEventListener("click", (e) => {
    const button = e.target.closest("button.linksbtn");
    if (button) showLinks(button.dataset.coordinate);
  });
  $("link-counts").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-kind]");
    if (!button) return;
    $("link-counts").querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
    showKind(button.dataset.kind, 0);
  });
  $("link-items").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-more]");
    if (button) showKind(button.dataset.more, Number(button.dataset.offset));
  });
  $("parallel-choices").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-parallel]");
    if (button) showParallel(parallelsShown, Number(button.dataset.parallel));
  });
  $("hanzi").value = hanzi();
  $("hanzi").addEventListener("change", () => {
    localStorage.setItem("gantha.hanzi", $("hanzi").value);
    load();
  });
  $("script").addEventListener("change", () => {
    localStorage.setItem("gantha.script", $("script").value);
    load();
  });
  load();
});
