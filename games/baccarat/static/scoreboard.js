// The table-side scoreboard: polls GET /api/scoreboard (public: settled coups only) and draws the roads.
const ROAD_IDS = ["bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"];

// The scoreboard's words are its language's catalogue's (scoreboard.<lang>.json beside this file, the same keys):
// this browser's choice (the pit dashboard's selector, kept in localStorage), else the table's `[table] language`
// (GET /api/language, no key), else English. Counts as the language writes numbers.
const LOCALES = { en: "en-GB", ru: "ru-RU" };
const words = { lang: "en", of: {} };
async function loadWords() {
  let lang = null;
  try { lang = localStorage.getItem("tablectl.language"); } catch (e) { /* storage refused: the table's */ }
  if (!lang) {
    try { const r = await fetch("/api/language", { cache: "no-store" }); if (r.ok) lang = (await r.json()).language; }
    catch (e) { /* no answer: English */ }
  }
  if (!(lang in LOCALES)) lang = "en";
  const r = await fetch(`/games/baccarat/scoreboard.${lang}.json`, { cache: "no-cache" });
  words.of = r.ok ? await r.json() : {};
  words.lang = lang;
  document.documentElement.lang = lang;
  for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
}
function t(key, vars) {
  const text = words.of[key] ?? key;
  return vars ? text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m)) : text;
}
const num = (n) => new Intl.NumberFormat(LOCALES[words.lang]).format(n);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

function cellEl(c, bead) {
  const attrs = { class: `cell ${c.mark}`, style: `grid-column: ${c.column + 1}; grid-row: ${c.row + 1}`,
    "data-mark": c.mark };
  const e = el("div", attrs);
  if (bead) e.textContent = t(`mark.${c.mark}`);
  else e.append(el("span"));
  if (c.ties) { e.append(el("div", { class: "tie-slash" })); if (c.ties > 1) e.append(el("b", { text: String(c.ties) })); }
  if (c.banker_pair) e.append(el("div", { class: "dot bp" }));
  if (c.player_pair) e.append(el("div", { class: "dot pp" }));
  return e;
}

function draw(board) {
  const n = board.counts;
  const count = (cls, key) => el("span", cls ? { class: cls, text: t(`count.${key}`, { n: num(n[key]) }) }
    : { text: t(`count.${key}`, { n: num(n[key]) }) });
  document.getElementById("counts").replaceChildren(count("banker", "banker"), count("player", "player"),
    count("tie", "tie"), count("banker", "banker_pair"), count("player", "player_pair"), count(null, "coups"));
  document.getElementById("last").replaceChildren(...board.last.map((r) => el("span", { class: r[0].toUpperCase(),
    text: t(`mark.${r[0].toUpperCase()}`) })));
  for (const id of ROAD_IDS) {
    document.getElementById(id).replaceChildren(...board[id].map((c) => cellEl(c, id === "bead_plate")));
  }
  document.getElementById("status").textContent = board.shoe_id ? t("shoe", { id: board.shoe_id }) : "";
}

async function poll() {
  try {
    const r = await fetch("/api/scoreboard", { cache: "no-store" });
    if (r.ok) { draw(await r.json()); document.body.dataset.loaded = "1"; }
    else document.getElementById("status").textContent = t("unavailable", { status: r.status });
  } catch (e) {
    document.getElementById("status").textContent = t("no_connection");
  }
  setTimeout(poll, 2000);
}
loadWords().catch(() => {}).finally(poll);
