// Shared by every page: interface text (English, simplified Chinese), the API helper, the header.

const TEXT = {
  en: {
    "nav.search": "Search", "nav.dist": "Distribution", "nav.desk": "Desk", "nav.chat": "Chat", "nav.admin": "Admin",
    "search.placeholder": "Pali word, phrase, Chinese or English — e.g. satipatthana",
    "search.go": "Search", "search.mode": "Mode", "search.lemma": "All forms of the lemma",
    "search.bold": "Bold only (definitions)", "search.pageref": "Page ref (e.g. PTS Vin II 31)",
    "search.results": "{total} results in {took} ms", "search.forms": "Forms searched ({n}):",
    "search.copy": "Copy citation", "search.copied": "Copied: {citation}", "search.read": "Read",
    "search.prev": "Previous", "search.next": "Next", "search.page": "Page {page} of {pages}",
    "search.none": "No hits.", "search.notfound": "Not found in the texts", "search.weak": "Weak candidates (below the confidence threshold):",
    "search.unattested": "This form does not occur in the texts. Attested forms:",
    "search.didyoumean": "No hits. Did you mean:",
    "facet.category": "Category", "facet.book": "Book", "facet.clear": "Clear filters",
    "cat.mula": "Root texts", "cat.atthakatha": "Commentaries", "cat.tika": "Subcommentaries", "cat.anya": "Others",
    "dist.title": "How a word spreads over the canon", "dist.word": "Word or lemma", "dist.show": "Show",
    "dist.total": "{total} paragraphs in {books} books", "dist.lemma": "Expand the lemma",
    "read.script": "Script", "read.missing": "no translation here", "read.link": "Link to this paragraph",
    "read.pali": "Pali", "read.hanzi": "Chinese characters", "read.parallel": "Parallel: {reference} {title}",
    "read.open": "open", "read.toolarge": "This chapter is too large to show whole; the paragraph alone:",
    "links.open": "Links of this paragraph", "links.of": "Links of {coordinate}", "links.none": "No links from this paragraph.",
    "links.more": "More", "links.shared": "shared", "links.curated": "curated",
    "kind.root": "Root text", "kind.commentary": "Commentary", "kind.subcommentary": "Sub-commentary",
    "kind.cites": "Cites", "kind.cited_by": "Cited by", "kind.parallels": "Parallels", "kind.variants": "Variants",
    "chat.placeholder": "Ask a question — e.g. What is parivāsa?", "chat.send": "Ask", "chat.sources": "Sources",
    "chat.scope": "Sources to use", "scope.corpus": "The texts", "scope.web": "The web", "scope.both": "Both",
    "chat.refusal": "Not in the texts", "chat.weak": "weak", "chat.web": "web", "chat.cited": "cited",
    "chat.error": "Error", "chat.thinking": "Searching the texts…", "chat.checks": "{failed} citation(s) failed the check", "chat.uncited": "{n} sentence(s) cite no source: check them against the sources",
    "chat.nomodel": "No language model is configured, so no answer was written: below are the passages the question leads to, whole. To have answers written from them, set GANTHA_LLM_BASE_URL to an OpenAI-compatible endpoint (with GANTHA_LLM_MODEL), or to “local” for the bundled model, and restart the server.",
    "admin.key": "API key", "admin.save": "Open", "admin.overview": "Overview", "admin.passages": "Passages",
    "admin.books": "Documents", "admin.size": "Index size", "admin.corpora": "Corpora",
    "admin.last": "Last ingests", "admin.documents": "Documents", "admin.add": "Add a source",
    "admin.path": "Server path", "admin.upload": "Or upload Markdown, text or CST XML", "admin.source": "Source type",
    "admin.submit": "Start ingestion", "admin.tasks": "Tasks", "admin.bench": "Search test bench",
    "admin.compare": "Compare modes", "admin.taxonomy": "Categories and tags", "admin.delete": "Delete",
    "admin.details": "Details", "admin.outline": "Outline and summaries", "admin.nodes": "nodes", "admin.chars": "characters", "admin.confirm": "Delete {key} from the index?", "admin.unauthorized": "Wrong or missing API key.",
    "admin.off": "The admin API is off: set GANTHA_ADMIN_KEY and restart the server.",
    "col.title": "Title", "col.key": "Document", "col.channels": "Channels", "col.passages": "Passages",
    "col.ingested": "Ingested", "col.state": "State", "col.progress": "Progress", "col.task": "Task",
    "lang": "Language",
  },
  "zh-Hans": {
    "nav.search": "检索", "nav.dist": "分布", "nav.desk": "语词研究", "nav.chat": "问答", "nav.admin": "管理",
    "search.placeholder": "巴利词、短语、中文或英文——例如 satipatthana",
    "search.go": "检索", "search.mode": "方式", "search.lemma": "词根的所有词形",
    "search.bold": "只看粗体（释义）", "search.pageref": "页码（例如 PTS Vin II 31）",
    "search.results": "共 {total} 条，用时 {took} 毫秒", "search.forms": "检索的词形（{n}）：",
    "search.copy": "复制引文", "search.copied": "已复制：{citation}", "search.read": "阅读",
    "search.prev": "上一页", "search.next": "下一页", "search.page": "第 {page} / {pages} 页",
    "search.none": "没有结果。", "search.notfound": "经文中没有找到", "search.weak": "低置信度候选（低于阈值）：",
    "search.unattested": "经文中没有这个词形。已见的词形：",
    "search.didyoumean": "没有结果。您是否要找：",
    "facet.category": "类别", "facet.book": "典籍", "facet.clear": "清除筛选",
    "cat.mula": "根本典籍", "cat.atthakatha": "注释书", "cat.tika": "复注", "cat.anya": "其他",
    "dist.title": "词语在三藏中的分布", "dist.word": "词或词根", "dist.show": "显示",
    "dist.total": "{books} 部典籍中的 {total} 段", "dist.lemma": "展开词根",
    "read.script": "文字", "read.missing": "此处无译文", "read.link": "本段链接",
    "read.pali": "巴利", "read.hanzi": "字体", "read.parallel": "对应经：{reference} {title}", "read.open": "打开",
    "read.toolarge": "本章过长，仅显示该段：",
    "links.open": "本段的关联", "links.of": "{coordinate} 的关联", "links.none": "本段没有关联。",
    "links.more": "更多", "links.shared": "共同文句", "links.curated": "整理",
    "kind.root": "所释原文", "kind.commentary": "注释", "kind.subcommentary": "复注",
    "kind.cites": "引用", "kind.cited_by": "被引用", "kind.parallels": "平行文本", "kind.variants": "异读",
    "chat.placeholder": "请提问——例如 什么是别住？", "chat.send": "提问", "chat.sources": "出处",
    "chat.scope": "资料来源", "scope.corpus": "经文", "scope.web": "网络", "scope.both": "两者",
    "chat.refusal": "经文中没有", "chat.weak": "弱", "chat.web": "网络", "chat.cited": "已引用",
    "chat.error": "错误", "chat.thinking": "正在检索经文…", "chat.checks": "{failed} 处引用未通过核对", "chat.uncited": "{n} 句未注明出处，请对照出处核实",
    "chat.nomodel": "未配置语言模型，因此没有生成回答：以下是问题所对应的完整段落。若要根据这些段落生成回答，请将 GANTHA_LLM_BASE_URL 设为兼容 OpenAI 的服务地址（并设置 GANTHA_LLM_MODEL），或设为 “local” 以使用自带的模型，然后重启服务器。",
    "admin.key": "API 密钥", "admin.save": "打开", "admin.overview": "概览", "admin.passages": "段落",
    "admin.books": "文献", "admin.size": "索引大小", "admin.corpora": "语料",
    "admin.last": "最近导入", "admin.documents": "文献", "admin.add": "添加来源",
    "admin.path": "服务器路径", "admin.upload": "或上传 Markdown、文本或 CST XML", "admin.source": "来源类型",
    "admin.submit": "开始导入", "admin.tasks": "任务", "admin.bench": "检索对比",
    "admin.compare": "比较各方式", "admin.taxonomy": "类别与标签", "admin.delete": "删除",
    "admin.details": "详情", "admin.outline": "大纲与摘要", "admin.nodes": "个节点", "admin.chars": "字符", "admin.confirm": "从索引中删除 {key}？", "admin.unauthorized": "API 密钥错误或缺失。",
    "admin.off": "管理 API 未开启：请设置 GANTHA_ADMIN_KEY 并重启服务器。",
    "col.title": "标题", "col.key": "文献", "col.channels": "版本", "col.passages": "段落",
    "col.ingested": "导入时间", "col.state": "状态", "col.progress": "进度", "col.task": "任务",
    "lang": "语言",
  },
};

export function lang() {
  const saved = localStorage.getItem("gantha.lang");
  if (saved && TEXT[saved]) return saved;
  return (navigator.language || "en").toLowerCase().startsWith("zh") ? "zh-Hans" : "en";
}

export function t(key, vars = {}) {
  const text = TEXT[lang()][key] ?? TEXT.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? vars[k] : `{${k}}`));
}

export function applyText(root = document) {
  document.documentElement.lang = lang();
  root.querySelectorAll("[data-t]").forEach((el) => (el.textContent = t(el.dataset.t)));
  root.querySelectorAll("[data-t-placeholder]").forEach((el) => (el.placeholder = t(el.dataset.tPlaceholder)));
  root.querySelectorAll("[data-t-label]").forEach((el) => el.setAttribute("aria-label", t(el.dataset.tLabel)));
}

/** The reader's address of a coordinate, each part encoded (a Markdown coordinate's "#2" is not a fragment). */
export function readerHref(coordinate) {
  return "/read/" + coordinate.split("/").map(encodeURIComponent).join("/");
}

export function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** A passage's display text: escaped, **bold** shown bold, [^n] note marks as superscripts. */
export function displayHtml(text) {
  return esc(text).replace(/\*\*(.+?)\*\*/g, "<b>$1</b>").replace(/\[\^(\w+)\]/g, "<sup>$1</sup>");
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Call the HTTP API (either envelope); resolve to `data`, or throw ApiError with the server's message. */
export async function api(path, options = {}) {
  const response = await fetch(path, options);
  let body = null;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(response.status, "bad_response", `HTTP ${response.status}`);
  }
  const v1 = typeof body.code === "number"; // the document service's envelope: {code, data, message}
  if (!response.ok || body.success === false || (v1 && body.code !== 0)) {
    const err = v1 ? { code: body.data?.error || body.code, message: body.message } : body.error || {};
    throw new ApiError(response.status, err.code || "error", err.message || `HTTP ${response.status}`);
  }
  return body.data;
}

export function header(active) {
  const links = [["/", "nav.search"], ["/dist", "nav.dist"], ["/desk", "nav.desk"], ["/chat", "nav.chat"], ["/admin", "nav.admin"]];
  const el = document.createElement("header");
  el.className = "top";
  el.innerHTML = `<a class="brand" href="/">gantha</a><nav aria-label="main">${links
    .map(([href, key]) => `<a href="${href}" data-t="${key}"${href === active ? ' aria-current="page"' : ""}></a>`)
    .join("")}</nav>
    <label class="lang"><span class="sr" data-t="lang"></span><select id="lang-select" data-t-label="lang">
      <option value="en">English</option><option value="zh-Hans">简体中文</option></select></label>`;
  document.body.prepend(el);
  const select = el.querySelector("#lang-select");
  select.value = lang();
  select.addEventListener("change", () => {
    localStorage.setItem("gantha.lang", select.value);
    location.reload();
  });
  applyText();
}

export function categoryName(key) {
  return t(`cat.${key}`) === `cat.${key}` ? key : t(`cat.${key}`);
}

export const CATEGORY_ORDER = ["mula", "atthakatha", "tika", "anya"];
