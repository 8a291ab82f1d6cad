// The pit dashboard: the table, the shoe, alerts, history and figures, live from the service's SSE stream.
// Vanilla JS, no build step. The stream is read with fetch() so the API key travels in a header;
// it resumes with Last-Event-ID after a dropped connection or a service restart, without a reload.
"use strict";

const SUITS = { S: ["♠", false], H: ["♥", true], D: ["♦", true], C: ["♣", false] };
const HILO = { "2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 0, "8": 0, "9": 0, T: -1, J: -1, Q: -1, K: -1, A: -1 };
const LOUDNESS = { slug: 5, integrity: 5, unexpected_card: 4, shoe_fault: 4, link_down: 3, call_pit: 2, weak_shuffle: 1, side_bet_edge: 1, shuffle_due: 1 };
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ the pit's language
// Every word the page shows is its language's catalogue's (/dashboard/i18n/<lang>.json, one per language, the
// same keys: docs/service.md, "The pit's language"): the table's `[table] language` (in /api/table), unless this
// browser chose its own with the selector at the top (kept in localStorage). Numbers, money and times are written
// as the language writes them (Intl: 1,234.50 in English, 1 234,50 in Russian).
const LOCALES = { en: "en-GB", ru: "ru-RU" };  // (en-GB: the pit's clock is a 24-hour one)
const LANGUAGE_KEY = "tablectl.language";
const i18n = { lang: "en", words: {}, english: {}, asked: {} };
function catalogue(lang) {
  if (!i18n.asked[lang]) {
    i18n.asked[lang] = fetch(`/dashboard/i18n/${lang}.json`, { cache: "no-cache" }).then((r) => {
      if (!r.ok) throw new Error(`the ${lang} catalogue: HTTP ${r.status}`);
      return r.json();
    });
    i18n.asked[lang].catch(() => { delete i18n.asked[lang]; });  // asked again next time
  }
  return i18n.asked[lang];
}
// The words of `key` in the page's language (English where the catalogue lacks them), each {name} filled in.
function t(key, vars) {
  const words = i18n.words[key] ?? i18n.english[key];
  if (words === undefined) return key;
  return vars ? words.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m)) : words;
}
const hasWords = (key) => key in i18n.words || key in i18n.english;
const locale = () => LOCALES[i18n.lang];
// A count with its noun in the language's plural form (Intl.PluralRules: Russian's one, few, many).
function tn(key, n, vars) {
  const form = `${key}.${new Intl.PluralRules(locale()).select(n)}`;
  return t(hasWords(form) ? form : `${key}.other`, Object.assign({ n: num(n) }, vars || {}));
}
// A number as the language writes it, with `places` decimals (else as many as it has, up to 2).
function num(x, places) {
  const n = Number(x);
  if (x === null || x === undefined || x === "" || Number.isNaN(n)) return x === null || x === undefined ? "" : String(x);
  const digits = places ?? (Number.isInteger(n) ? 0 : 2);
  return new Intl.NumberFormat(locale(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);
}
// An amount of money (the API's decimal strings): cents shown only where there are some, as the felt's chips read.
const money = (s) => (s === null || s === undefined ? "" : num(s));
// The language this browser shows: its own choice, else the table's (`[table] language`), else English.
function chosenLanguage(v) {
  let own = null;
  try { own = localStorage.getItem(LANGUAGE_KEY); } catch (e) { /* storage refused: the table's */ }
  const lang = own || (v && v.language) || "en";
  return lang in LOCALES ? lang : "en";
}
// Show the page in `lang`: the catalogue's words in the page's marked places, then everything drawn again.
async function setLanguage(lang) {
  const [english, words] = await Promise.all([catalogue("en"), catalogue(lang)]);
  Object.assign(i18n, { lang, english, words });
  document.documentElement.lang = lang;
  for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  for (const attr of ["placeholder", "title", "aria-label"]) {
    const data = "i18n" + attr.replace(/(^|-)(\w)/g, (m, d, c) => c.toUpperCase());  // data-i18n-aria-label
    for (const e of document.querySelectorAll(`[data-i18n-${attr}]`)) e.setAttribute(attr, t(e.dataset[data]));
  }
  $("lang").value = lang;
  if (!$("table-name").textContent) $("table-name").textContent = t("page.table");
  showKeyState();
  setLive(state.connected, state.connected || state.reconnects ? null : t("live.connecting"));
  stats();
  if (state.view) renderTable(state.view);
  if (state.historyBody) renderHistory(state.historyBody);
  if (state.figuresBody) renderFigures(state.figuresBody);
  if (state.dealersBody) renderDealers(state.dealersBody);
  if (state.shiftLogBody) renderShiftLog(state.shiftLogBody);
}

const state = {
  key: null, view: null, sseSeq: 0, events: 0, gaps: 0, reconnects: 0, connected: false,
  seenCards: new Set(), openRounds: new Set(), lastEventAt: 0, controller: null, historyPage: 1, pollTimer: null,
  // A key the server answered 401 to: reads no longer send it (they fall back to what needs no key),
  // acting stays off until it is forgotten or replaced; readsNeedKey once a keyless read is refused too.
  keyRejected: false, readsNeedKey: false,
  skew: null, // the table's clock minus this one's (ms), from the first answer's Date: alert ages are the table's
  leading: false, // this tab holds the browser's one live stream (see "one live stream per browser")
  supervisor: false, historyBody: null, // the key is a supervisor's (the dispute links); the history page drawn
  said: new Map(), // what an action answered, by where it was clicked ("alert:ID", "banner:ID"): see say()
};
// A read that never answers is given up after this long, so it never blocks the refreshes after it.
const READ_TIMEOUT_MS = 15000;
window.tablectl = state; // for the browser tests and the curious

// ------------------------------------------------------------------ the key
function loadKey() {
  const m = location.hash.match(/(?:^#|&)key=([^&]+)/);
  if (m) {
    sessionStorage.setItem("tablectl.key", decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search); // keep the key out of the address bar
  }
  state.key = sessionStorage.getItem("tablectl.key");
  showKeyState();
}

// What the key does now, in words. A rejected key is named as rejected, with one button to forget it.
function showKeyState() {
  const rejected = !!(state.key && state.keyRejected);
  $("key-state").textContent = t(!state.key ? "key.none" : rejected ? "key.rejected" : "key.set");
  $("key-rejected").hidden = !rejected;
  $("key-rejected-text").textContent = t(state.readsNeedKey ? "key.rejected_reads" : "key.rejected_view");
}

// The key goes with every action, and with reads unless the server has rejected it.
function headers(extra, acting) {
  const h = Object.assign({}, extra || {});
  if (state.key && (acting || !state.keyRejected)) h.Authorization = "Bearer " + state.key;
  return h;
}

function rejectKey() {
  if (state.keyRejected) return;
  state.keyRejected = true;
  showKeyState();
}

async function api(path, options) {
  const opts = Object.assign({ cache: "no-store" }, options || {});
  const acting = !!(opts.method && opts.method !== "GET");
  opts.headers = headers(opts.headers, acting);
  const withKey = "Authorization" in opts.headers;
  if (!acting && !opts.signal && AbortSignal.timeout) opts.signal = AbortSignal.timeout(READ_TIMEOUT_MS);
  const r = await fetch(path, opts);
  if (state.skew === null) {
    const told = Date.parse(r.headers.get("date") || "");
    if (!Number.isNaN(told)) state.skew = told - Date.now();
  }
  let body = null;
  const type = r.headers.get("content-type") || "";
  if (type.includes("json")) body = await r.json();
  if (!r.ok) {
    if (r.status === 401 && withKey) {  // the key is wrong, not the read: read again without it
      rejectKey();
      if (!acting) return api(path, options);
    }
    if (r.status === 401 && !withKey && !acting && !state.readsNeedKey) { state.readsNeedKey = true; showKeyState(); }
    const err = new Error((body && body.error && body.error.message) || "HTTP " + r.status);
    err.status = r.status;
    err.withKey = withKey;
    throw err;
  }
  return body;
}

// ------------------------------------------------------------------ drawing
const kids = (...xs) => xs.flat().filter((x) => x !== null && x !== undefined && x !== false);
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function cardEl(code, key) {
  if (code === "XX") return el("span", { class: "card back", role: "img", "aria-label": t("card.face_down"), title: t("card.face_down") });
  const rank = code[0], suit = SUITS[code[1]] || ["?", false];
  const shown = rank === "T" ? "10" : rank;
  const isNew = key && !state.seenCards.has(key + code);
  if (key) state.nextSeen.add(key + code);
  return el("span", { class: "card" + (suit[1] ? " red" : "") + (isNew ? " new" : ""), role: "img",
    "aria-label": t("card.name", { rank: shown, suit: hasWords("suit." + code[1]) ? t("suit." + code[1]) : code[1] }),
    "data-card": code },
    el("span", { class: "r", text: shown }), el("span", { class: "s", text: suit[0] }));
}

const totalText = (totals) => (totals && totals.length ? totals.join(" / ") : "");

// One point of view everywhere: the house's. The API's nets are the players'; the house's is the opposite.
function house(net) {
  const n = -Number(net || 0);
  const text = (n > 0 ? "+" : n < 0 ? "−" : "") + num(Math.abs(Math.round(n * 100) / 100));
  return el("span", { class: "house " + (n > 0 ? "pos" : n < 0 ? "neg" : ""), "data-house": String(n) },
    el("span", { class: "k", text: t("house.k") }), text);
}

// A hand's total: both while the player may still choose, the best one once the hand is done.
function handTotal(totals, done) {
  if (!totals || !totals.length) return "";
  return done ? String(totals[totals.length - 1]) : totalText(totals);
}

// The marks every game's hands may carry, in the pit's words ("mark.*" in the catalogue; a game's renderer adds its
// own: `markText`, and its words in another language: `words`).

// ------------------------------------------------------------------ the game's felt
// What differs from game to game on the felt (its marks, its phases' words, a bank, duels, a bottom card) is
// drawn by the renderer of the view's `view_kind`, an ES module in the game's own folder that the API serves at
// /games/<kind>/felt.js (docs/games.md); the dashboard never asks which game is played. Until it has loaded,
// the felt is drawn with none of a game's own parts, and drawn again once it is there.
const felts = {};
function felt(v) {
  const kind = v && v.view_kind;
  if (!kind) return {};
  if (!(kind in felts)) {
    felts[kind] = null;
    import(`/games/${encodeURIComponent(kind)}/felt.js`).then((m) => {
      felts[kind] = m.default || {};
      if (state.view) renderTable(state.view);
      if (state.historyBody) renderHistory(state.historyBody);
    }, (e) => { felts[kind] = {}; console.error(`the ${kind} felt did not load`, e); });
  }
  return felts[kind] || {};
}
// What a game's renderer draws with (each hook gets these, so it builds the felt as the dashboard does).
const helpers = () => ({ el, cardEl, marks, handTotal, house, t, num, money, lang: i18n.lang });
// Who deals, as the game names him (the view's dealer_title: Dealer, Banker), in the page's language.
const titleText = (title) => (title && hasWords(`who.${title}`) ? t(`who.${title}`) : title || t("felt.dealer"));

// A word of the felt: the game's own (its renderer's `words[lang][name][key]`, else its English `name[key]`), else
// the catalogue's `prefix.key`.
function wordFor(prefix, name, key) {
  const f = felt(state.view);
  const own = (f.words && f.words[i18n.lang] && f.words[i18n.lang][name]) || (i18n.lang === "en" && f[name]) || null;
  if (own && own[key]) return own[key];
  if (hasWords(`${prefix}.${key}`)) return t(`${prefix}.${key}`);
  return (f[name] && f[name][key]) || null;  // a game's word it has in English only
}
function marks(list) {
  return el("span", { class: "marks" }, list.map((m) => el("span", { class: "mark m-" + m, "data-mark": m,
    text: wordFor("mark", "markText", m) || m })));
}

function handMarks(h, f) {
  const m = [];
  const surrendered = h.surrendered || h.outcome === "surrender";
  if (f.naturalMarks) m.push(...f.naturalMarks(h));  // the game's own first marks (blackjack's two-card 21)
  if (h.bust) m.push("busted");
  if (h.doubled) m.push("doubled");
  if (h.split) m.push("split");
  if (surrendered) m.push("surrendered");
  if (f.handMarks) m.push(...f.handMarks(h));  // the game's own (even money; closed, dark, folded)
  if (h.done && !h.bust && !h.doubled && !surrendered && (!f.stood || f.stood(h))) m.push("stood");
  return m;
}

function dealerMarks(d, f) {
  const m = [];
  if (f.dealerNaturalMarks) m.push(...f.dealerNaturalMarks(d));  // the game's own first marks (a dealer's blackjack)
  if (d.bust) m.push("busted");
  if (f.dealerMarks) m.push(...f.dealerMarks(d));
  if (d.done && !d.bust && d.cards.length && (!f.dealerStood || f.dealerStood(d))) m.push("stood");
  return m;
}

// The phases in the pit's words ("phase.*" in the catalogue; the API's names are for programs).

// How a hand ended, in the pit's words: the table's own outcomes ("outcome.*"; a game's renderer adds its own:
// `outcomeText`).
const outcomeText = (o) => (o ? wordFor("outcome", "outcomeText", o) || o : o);

// A closed hand's total is not told below supervisor: say how many cards it holds instead.
function closedText(h) {
  return h.closed && (!h.totals || !h.totals.length) ? tn("hand.closed_cards", h.card_count ?? h.cards.length) : "";
}

// `alone`: the box's only hand, whose bet its header shows and whose result (once settled) the box's
// line shows, so each figure is on the felt once (issue 23); a split's hands each show their own.
function handEl(h, hi, key, alone, f) {
  const settledBox = alone && alone.settled;
  return el("div", { class: "hand" + (h.in_play ? " in-play" : ""), "data-hand": hi },
    el("div", { class: "cards" }, h.cards.map((c, ci) => cardEl(c, key ? `${key}-${hi}-${ci}` : null))),
    el("div", { class: "meta" },
      el("span", { class: "total", "data-testid": "hand-total", text: handTotal(h.totals, h.done) }),
      closedText(h) ? el("span", { class: "muted small", "data-testid": "hand-closed", text: closedText(h) }) : null,
      marks(handMarks(h, f)),
      alone && Number(h.bet) === alone.bets ? null : el("span", { class: "bet", text: t("hand.bet", { bet: money(h.bet) }) })),
    h.outcome ? el("div", { class: "result" },
      el("span", { class: "outcome " + h.outcome, text: outcomeText(h.outcome) }),
      settledBox ? null : house(h.net)) : null);
}

function boxEl(b, v, settled, f) {
  const here = !settled && v.turn && v.turn.box === b.box && !b.next_round;
  const bets = Object.values(b.bets || {}).reduce((a, x) => a + Number(x), 0);
  const boxMarks = f.boxMarks ? f.boxMarks(b) : [];  // the game's own (insured; recontra, the spent pack's choice)
  return el("li", { class: "box" + (here ? " turn-here" : "") + (b.next_round ? " next" : "") + (settled ? " settled" : ""),
      "data-box": b.box, "aria-current": here ? "true" : null },
    el("header", {}, el("span", { class: "num", text: t("box.name", { box: b.box }) }),
      el("span", { text: b.owner && b.owner !== `box${b.box}` ? b.owner : "" }),
      el("span", { text: t("box.bet", { bet: money(bets) }) + (b.insurance ? t("box.insurance", { amount: money(b.insurance) }) : "") })),
    boxMarks.length ? marks(boxMarks) : null,
    b.hands.map((h, hi) => handEl(h, hi, settled ? null : `b${v.round}-${b.box}`,
      b.hands.length === 1 ? { bets, settled } : null, f)),
    heldHere(v, settled ? null : b.box),
    ...(f.boxExtras ? f.boxExtras(b, v, helpers()) : []),  // the game's own (a duel)
    settled ? el("div", { class: "box-result", "data-testid": "box-result" },
      b.insurance_net !== null && b.insurance_net !== undefined ? el("span", { class: "muted small", text: t("box.insurance_result") }) : null,
      b.insurance_net !== null && b.insurance_net !== undefined ? house(b.insurance_net) : null,
      b.hands.length > 1 || (b.insurance_net !== null && b.insurance_net !== undefined)
        ? el("span", { class: "muted small", text: t("box.result") }) : null, house(b.net)) : null);
}

// A held card lies on the felt where it would have gone (the box or the dealer in turn, else in front
// of the dealer), marked as held, until the supervisor discards it or voids the round.
function heldPlace(v) {
  if (!v.held_cards || !v.held_cards.length) return null;
  if (v.turn && v.turn.box !== undefined && v.boxes.some((b) => b.box === v.turn.box && !b.next_round)) return v.turn.box;
  return "dealer";
}

function heldHere(v, place) {
  if (place === null || heldPlace(v) !== place) return null;
  return el("div", { class: "held", "data-testid": "held-card" },
    el("span", { class: "held-label", text: t(v.held_cards.length > 1 ? "held.many" : "held.one") }),
    el("span", { class: "cards" }, v.held_cards.map((c) => cardEl(c))),
    el("span", { class: "muted small", text: t("held.note") }));
}

function renderTable(v) {
  state.view = v;
  state.nextSeen = new Set();
  $("table-name").textContent = v.table || t("page.table");
  const f = felt(v);
  const phase = $("phase");
  const phaseText = wordFor("phase", "phaseText", v.phase) || v.phase.replaceAll("_", " ");
  phase.textContent = phaseText + (v.round ? t("phase.round", { n: v.round }) : "");
  phase.className = "badge phase-" + v.phase; // never a bare class name: "dealer" is also the felt's
  document.title = `${v.table} · ${phaseText}${v.alerts.length ? " · " + tn("title.alerts", v.alerts.length) : ""}`;
  $("limits").textContent = v.limits ? t("limits", { min: money(v.limits.min), max: money(v.limits.max) }) : "";
  const duty = v.dealer_on_duty;
  $("on-duty").textContent = !duty ? t("duty.nobody")
    : duty.since ? t("duty.since", { dealer: duty.dealer, time: fmtTime(duty.since) }) : duty.dealer;
  renderRotation(duty);
  $("demo-pace").hidden = !v.demo_pace;

  // Between rounds the settled round stays on the felt until the next round's first card.
  const s = !v.round && v.settled ? v.settled : null;
  const d = s ? s.dealer : v.dealer;
  const dealerTurn = v.turn && v.turn.dealer;
  const tableMarks = f.tableMarks ? f.tableMarks(v) : [];  // the round's own (contra, the spent pack)
  $("dealer").replaceChildren(...kids(
    el("span", { class: "label", text: titleText(v.dealer_title) }),  // as the game names him: Dealer, Banker
    el("span", { class: "cards", "data-testid": "dealer-cards" }, d.cards.map((c, i) => cardEl(c, s ? null : `d${v.round}-${i}`))),
    el("span", { class: "total", "data-testid": "dealer-total", text: handTotal(d.totals, d.done) }),
    closedText(d) ? el("span", { class: "muted small", "data-testid": "dealer-closed", text: closedText(d) }) : null,
    marks(dealerMarks(d, f)),
    tableMarks.length ? marks(tableMarks) : null,
    dealerTurn ? el("span", { class: "outcome push", text: t("felt.drawing") }) : null,
    ...(f.dealerExtras ? f.dealerExtras(v, helpers()) : []),  // the game's own (the bottom card, a bank)
    heldHere(v, "dealer")));

  let turn = "";
  if (v.turn && v.turn.box !== undefined) {
    turn = v.turn.hand ? t("turn.box_hand", { box: v.turn.box, hand: v.turn.hand + 1 }) : t("turn.box", { box: v.turn.box });
  } else if (dealerTurn) turn = t("turn.draws", { who: titleText(v.dealer_title) });
  else if (f.turnText && f.turnText(v, helpers())) turn = f.turnText(v, helpers());  // the game's own phases (contra, a spent pack)
  else if (v.next_card) turn = t("turn.next_card", { card: v.next_card });
  else if (v.shuffle_due) turn = t("turn.shuffle_due");
  $("turn").textContent = turn;

  // The last settled round and the bets taken for the next one are apart, each labelled (issue 23).
  const current = v.boxes.filter((b) => !b.next_round);
  const next = v.boxes.filter((b) => b.next_round);
  $("boxes").replaceChildren(...(s ? s.boxes.map((b) => boxEl(b, v, true, f)) : current.map((b) => boxEl(b, v, false, f))));
  $("boxes").setAttribute("aria-label", s ? t("felt.boxes_settled", { n: s.number }) : t("felt.boxes"));
  $("next-bets").hidden = !next.length;
  $("next-bets-h").textContent = s || !v.round ? t("felt.next_bets") : t("felt.next_bets_after", { n: v.round });
  $("next-boxes").replaceChildren(...next.map((b) => boxEl(b, v, false, f)));
  state.seenCards = state.nextSeen;

  $("last-round").replaceChildren(s
    ? el("span", { "data-testid": "settled" }, t("felt.last_round", { n: s.number }) + (s.void ? t("felt.void_suffix") : "") + " · ", house(s.net))
    : "");

  renderBanner(v);
  renderAlerts(v.alerts);
  alertsChanged(v.alerts);
  renderShoe(v);
  showSeq(state.sseSeq || v.last_seq);
}

// Dealer rotation: the dealer on duty is due for a break `[table] dealer_break_minutes` after signing in (the
// table says when: break_due_at); from then the line says so, and for how long he has dealt.
function renderRotation(duty) {
  const due = $("break-due");
  const at = duty && duty.break_due_at ? Date.parse(duty.break_due_at) : NaN;
  if (Number.isNaN(at)) { due.textContent = ""; due.className = ""; return; }
  const now = tableNow();
  if (now >= at) {
    due.textContent = t("duty.due", { span: span(now - Date.parse(duty.since)) });
    due.className = "break-due";
  } else {
    due.textContent = t("duty.due_at", { time: fmtTime(duty.break_due_at) });
    due.className = "muted small";
  }
}

// ------------------------------------------------------------------ the table-stopped banner
function cardName(code) {
  if (!code || code === "XX") return t("card.a_face_down");
  const suit = SUITS[code[1]];
  return (code[0] === "T" ? "10" : code[0]) + (suit ? suit[0] : code.slice(1));
}

function stopReasons(v) {
  const out = [];
  const dev = v.shoe_device || {};
  const active = (kind) => v.alerts.some((a) => a.kind === kind && a.active);
  if (!dev.link_up || active("link_down")) {
    const a = v.alerts.find((x) => x.kind === "link_down");
    out.push([t("stop.link") + (a ? ": " + linkReason(a.message) : ""), t("stop.link_how")]);
  }
  if (v.phase === "attention") {
    const held = v.held_cards.map(cardName).join(", ");
    out.push([held ? t("stop.attention_held", { cards: held }) : t("stop.attention"), t("stop.attention_how")]);
  }
  if (dev.jammed) out.push([t("stop.jam"), t("stop.jam_how")]);
  if (dev.lid_open) out.push([t("stop.lid"), t("stop.lid_how")]);
  const fault = v.alerts.find((a) => a.kind === "shoe_fault" && a.active);
  if (fault && !dev.jammed && !dev.lid_open) out.push([alertText(fault), t("stop.fault_how")]);
  // An alarm stays on the banner until a supervisor acknowledges it, its cause gone or not: a slug (a possible
  // false shuffle) stops nothing, the felt plays on, and a small card in the alerts' column was all the pit saw
  // of it (issue 41). Each carries its own Acknowledge button. (A lost link has its own line above.)
  for (const a of v.alerts) {
    if (a.acknowledged || a.kind === "link_down" || a.level !== "alarm") continue;
    const said = alertText(a).replace(/^possible slug:\s*/i, "");  // (the head says it already)
    const own = hasWords(`alarm.${a.kind}`);
    out.push([own ? t(`alarm.${a.kind}`) + ": " + said : said, t(own ? `alarm.${a.kind}_how` : "stop.alarm_how"), a]);
  }
  if (v.shuffle_due && !out.length) out.push([t("stop.shuffle"), t("stop.shuffle_how")]);
  if ((v.locked || dev.gate_locked) && !out.length) out.push([t("stop.gate"), t("stop.gate_how")]);
  return out;
}

// What an alarm's banner line says first, and what the pit does (docs/service.md, every alert kind): the
// catalogue's "alarm.KIND" and "alarm.KIND_how".

const LEVEL_RANK = { notice: 0, action: 1, alarm: 2 };

// The most urgent level behind the banner: its open alerts' own, a held card or the shoe's state
// (a jam, an open lid: the dealer acts) at least action, a lost link an alarm.
function bannerLevel(v, reasons) {
  const dev = v.shoe_device || {};
  let rank = 0;
  for (const a of v.alerts) if (a.active || (!a.acknowledged && a.level === "alarm")) rank = Math.max(rank, LEVEL_RANK[a.level] ?? 2);
  if (v.phase === "attention" || dev.jammed || dev.lid_open) rank = Math.max(rank, 1);
  if (!dev.link_up) rank = 2;
  if (!(v.shuffle_due && reasons.length === 1) && rank === 0) rank = 1;  // a gate held shut waits for a person
  return Object.keys(LEVEL_RANK).find((k) => LEVEL_RANK[k] === rank);
}

function renderBanner(v) {
  const reasons = stopReasons(v);
  const banner = $("stopped");
  banner.hidden = !reasons.length;
  // The banner follows the level (controller/alerts.py ALERT_LEVEL, issue 23): a due shuffle alone is
  // a notice, not a stopped table.
  const level = bannerLevel(v, reasons);
  banner.className = "stopped " + level + (level === "notice" ? " routine" : "");
  banner.dataset.level = level;
  $("stopped-h").textContent = t(`banner.${level}`);
  $("stopped-list").replaceChildren(...reasons.map(([what, how, alert]) =>
    el("li", alert ? { "data-alert-id": alert.id, "data-kind": alert.kind } : {},
      el("b", { text: what }), el("span", { class: "how", text: " — " + how }),
      alert ? el("button", { class: "primary", "data-act": "ack", "data-alert": alert.id }, t("banner.acknowledge")) : null,
      alert ? saidAt(`banner:${alert.id}`) : null)));
  // The shoe's own state (a jam cleared, a lid closed) changes without a journal event: look again soon.
  if (reasons.length && !state.pollTimer) state.pollTimer = setTimeout(() => { state.pollTimer = null; refreshTable(); }, 1000);
}

// ------------------------------------------------------------------ human alert texts
function linkReason(message) {
  return (message || "").replace(/^shoe link down:\s*/, "") || t("alert.no_answer");
}

function actorName(actor) {
  if (!actor) return t("actor.dealer");
  const m = actor.match(/^(viewer|dealer|supervisor|admin):(.+)$/);
  if (m) return m[1] === "dealer" ? t("actor.dealer_named", { name: m[2] }) : t("actor.role_named", { role: t(`role.${m[1]}`), name: m[2] });
  if (actor === "console") return t("actor.console");
  if (actor.startsWith("shoe button")) return t("actor.shoe_button");
  const box = actor.match(/^box ?(\d+)$/);
  return box ? t("box.name", { box: box[1] }) : actor;
}

// The shoe's faults in words: the catalogue's "fault.KIND" (jam, lid_open, unreadable, bad_data; other).

function alertText(a) {
  const msg = a.message || "";
  if (a.kind === "call_pit") return t("alert.calls_pit", { who: actorName(msg.replace(/ calls the pit$/, "")) });
  if (a.kind === "link_down") { const r = linkReason(msg); return t("alert.link_down", { reason: r.charAt(0).toLowerCase() + r.slice(1) }); }
  if (a.kind === "shoe_fault") {
    const m = msg.match(/^shoe fault (\w+)(?::\s*(.*?))?(?:\s*\(card (\d+)\))?$/);
    if (m) return t(hasWords(`fault.${m[1]}`) ? `fault.${m[1]}` : "fault.other") + (m[3] ? t("alert.fault_card", { n: m[3] }) : "");
  }
  if (a.kind === "unexpected_card") {
    const m = msg.match(/^unexpected card (\S+): (.*)$/);
    if (m) return t("alert.unexpected", { card: cardName(m[1]), why: m[2] });
  }
  if (a.kind === "shuffle_due") {
    const cut = msg.match(/right to cut: (.+)\)/);
    return t("alert.cut_out") + (cut ? t("alert.cut_out_rtc", { who: actorName(cut[1]) }) : "");
  }
  return msg.charAt(0).toUpperCase() + msg.slice(1);
}

// An alert's kind in the pit's words (the catalogue's "kind.KIND"; the API's name for a kind it lacks).
const kindText = (kind) => (hasWords(`kind.${kind}`) ? t(`kind.${kind}`) : kind.replaceAll("_", " "));

// The table's time now: this clock set by the table's (state.skew), so an age does not depend on the tablet's clock.
const tableNow = () => Date.now() + (state.skew || 0);

// A span of time in the pit's words: "45 s", "3 min", "1 h 5 min".
function span(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return t("span.s", { n: s });
  const m = Math.floor(s / 60);
  return m < 60 ? t("span.min", { n: m }) : t("span.h", { n: Math.floor(m / 60) }) + (m % 60 ? " " + t("span.min", { n: m % 60 }) : "");
}

function ago(iso) {
  const ms = tableNow() - Date.parse(iso);
  return ms < 60000 ? t("ago.now") : t("ago.span", { span: span(ms) });
}

// Who acknowledged an alert (the name of the key, without its role) and how long it had waited.
function acknowledgedText(a) {
  const who = (a.acknowledged_by || "").replace(/^(viewer|dealer|supervisor|admin):/, "") || t("alerts.someone");
  const after = a.acknowledged_at && a.raised_at ? t("alerts.after", { span: span(Date.parse(a.acknowledged_at) - Date.parse(a.raised_at)) }) : "";
  return t("alerts.acknowledged_by", { who }) + after;
}

// The ages move on between updates.
setInterval(() => {
  for (const t of document.querySelectorAll("#alert-list time[data-testid=alert-age]")) t.textContent = ago(t.getAttribute("datetime"));
}, 15000);

function renderAlerts(alerts) {
  const sorted = [...alerts].sort((a, b) =>
    (b.active - a.active) || ((LOUDNESS[b.kind] || 0) - (LOUDNESS[a.kind] || 0)) || (b.id - a.id));
  const count = $("alert-count");
  count.textContent = String(alerts.length);
  count.className = "count" + (alerts.length ? " hot" : "");
  // A refusal of an alert that has left the board since (another supervisor acknowledged it first): said where its
  // card was, at the head of the list, until SAID_MS.
  const here = new Set(alerts.map((a) => a.id));
  const gone = [...state.said].filter(([place, said]) => said.refused && !here.has(Number(place.split(":")[1])))
    .map(([place]) => el("li", { class: "alert gone", "data-alert-id": place.split(":")[1] },
      el("div", { class: "kind", text: t("alerts.closed", { id: place.split(":")[1] }) }), saidAt(place)));
  if (!sorted.length) { $("alert-list").replaceChildren(...gone, el("li", { class: "none", text: t("alerts.none") })); return; }
  $("alert-list").replaceChildren(...gone, ...sorted.map((a) => {
    const loud = (LOUDNESS[a.kind] || 0) >= 4;
    const btns = [];
    if (!a.acknowledged) btns.push(el("button", { class: "primary", "data-act": "ack", "data-alert": a.id }, t("banner.acknowledge")));
    if (a.kind === "unexpected_card" && a.active) {
      btns.push(el("button", { "data-act": "discard", "data-alert": a.id }, t("alerts.discard")));
      btns.push(el("button", { class: "danger", "data-act": "void", "data-alert": a.id }, t("alerts.void")));
    }
    const how = hasWords(`alerts.how.${a.kind}`) ? t(`alerts.how.${a.kind}`) : null;
    return el("li", { class: "alert" + (loud ? " sev-3" : "") + (a.acknowledged ? " acked" : ""),
        "data-alert-id": a.id, "data-kind": a.kind },
      a.raised_at ? el("time", { class: "when", "data-testid": "alert-age", datetime: a.raised_at,
        title: t("alerts.raised_at", { time: fmtTime(a.raised_at) }), text: ago(a.raised_at) }) : null,
      el("div", { class: "kind", text: t("alerts.kind_line", { kind: kindText(a.kind), id: a.id }) }),
      el("div", { class: "text", text: alertText(a) + (a.count > 1 ? t("alerts.times", { n: a.count }) : "") }),
      el("div", { class: "muted small", "data-testid": "alert-ack", text: (a.acknowledged ? acknowledgedText(a) : t("alerts.not_acknowledged"))
        // A cause that has gone (a cleared jam) says so at once; the alert waits only for a look.
        + t(a.active ? "alerts.cause_active" : "alerts.cause_gone") + (how && a.active ? ` · ${how}` : "") }),
      el("div", { class: "btns" }, btns), saidAt(`alert:${a.id}`));
  }));
}

// Each game says which shoe figures it has (v.shoe_figures); a part of the panel marked data-figure shows only
// where the game has that figure (the club games: no cut card, no penetration, no right to cut, no count).
function showShoeFigures(v) {
  const figures = new Set(v.shoe_figures || []);
  for (const part of document.querySelectorAll(".shoe [data-figure]")) part.hidden = !figures.has(part.dataset.figure);
  return figures;
}

function renderShoe(v) {
  const s = v.shoe;
  const figures = showShoeFigures(v);
  $("shoe-due").textContent = t(v.shuffle_due ? "shoe.yes" : "shoe.no");
  $("shoe-rtc").textContent = v.right_to_cut ? actorName(v.right_to_cut) : "–";
  $("shoe-bottom").replaceChildren(...(v.bottom_card ? [cardEl(v.bottom_card), t("shoe.bottom_shown")] : ["–"]));
  if (!s) { $("shoe-id").textContent = t("shoe.none"); $("shoe-left").textContent = "–"; return; }
  $("shoe-id").textContent = s.id;
  $("shoe-dealt").textContent = t("shoe.dealt_value", { dealt: num(s.dealt), size: num(s.size) })
    + (figures.has("burned") && s.burned ? t("shoe.burned", { n: num(s.burned) }) : "");
  $("shoe-left").textContent = num(Math.max(0, s.size - s.dealt));
  $("shoe-pen").textContent = `${num(s.penetration * 100, 1)} %`;
  $("pen-bar").style.width = `${Math.min(100, s.penetration * 100)}%`;
  const cut = $("pen-cut"), zone = $("pen-zone");
  if (s.cut_card_position) {  // out: the marker where it came out
    cut.hidden = false;
    cut.style.left = `${Math.min(100, (100 * s.cut_card_position) / s.size)}%`;
  } else cut.hidden = true;
  const z = s.cut_card_zone || [];
  if (z.length === 2 && !s.cut_card_out) {  // still in: where the rules place it
    zone.hidden = false;
    zone.style.left = `${(100 * z[0]) / s.size}%`;
    zone.style.width = `${Math.max(0.5, (100 * (z[1] - z[0])) / s.size)}%`;
  } else zone.hidden = true;
  $("shoe-cut").textContent = s.cut_card_out ? t("shoe.cut_out", { n: s.cut_card_position ?? "?" })
    : (z.length === 2 ? t("shoe.cut_zone", { from: z[0], to: z[1] }) : t("shoe.cut_placed"));
  const rem = s.remaining_by_rank || {};
  let left = 0, rc = 0;
  for (const [rank, n] of Object.entries(rem)) { left += n; rc -= (HILO[rank] || 0) * n; } // Hi-Lo is balanced
  const tc = left ? rc / (left / 52) : 0;
  $("shoe-count").textContent = `${rc > 0 ? "+" : ""}${num(rc)} / ${tc > 0 ? "+" : ""}${num(tc, 1)}`;
  const max = Math.max(1, ...Object.values(rem));
  $("ranks").style.gridTemplateColumns = `repeat(${Object.keys(rem).length || 13}, 1fr)`;  // a 36-card pack has 9 ranks
  $("ranks").replaceChildren(...Object.entries(rem).map(([rank, n]) => el("div", { class: "rank", title: t("shoe.rank_left", { rank, n }) },
    el("i", { style: `height:${Math.round((60 * n) / max)}%` }), el("b", { text: rank === "T" ? "10" : rank }), el("span", { text: String(n) }))));
  const ex = $("export-shoe");
  ex.hidden = false;
  ex.href = `/api/export?shoe=${encodeURIComponent(s.id)}`;
}

function fmtTime(iso) {
  return iso ? new Date(iso).toLocaleTimeString(locale(), { hour: "2-digit", minute: "2-digit", second: "2-digit" }) : "";
}


// Why a round was voided (the record's void_reason; older records have none), in the pit's words ("void.REASON").
function voidText(r) {
  if (!r.void_reason) return t("void.label");
  return t("void.with_reason", { why: hasWords(`void.${r.void_reason}`) ? t(`void.${r.void_reason}`) : r.void_reason.replaceAll("_", " ") });
}

// The record of a disputed round (docs/dispute.md) is the supervisor's: its links show once the key is known to
// be one (the dealers' panel answered), and each is fetched with the key, then opened (HTML) or saved (PDF, JSON).
function disputeLinks(n) {
  if (!state.supervisor) return null;
  return el("span", { class: "dispute", "data-testid": "dispute" }, t("history.dispute"),
    ["html", "pdf", "json"].flatMap((f, i) => [i ? " · " : "",
      el("a", { href: `/api/rounds/${n}/dispute?format=${f}`, "data-dispute": f, "data-round": String(n), text: f.toUpperCase() })]));
}

// The table makes one report at a time (a dispute record, an export, the dealers' or the players' figures) and
// answers one asked meanwhile with 429 busy. The page asks its own one after another, so it never races itself:
// the dealers' panel refreshing as the supervisor opens a record was refused half the time.
let reportChain = Promise.resolve();
function oneReport(work) {
  const run = reportChain.then(work, work);
  reportChain = run.catch(() => {});
  return run;
}

async function openDispute(a) {
  const f = a.dataset.dispute, n = a.dataset.round;
  const win = f === "html" ? window.open("", "_blank") : null; // opened within the click, so no pop-up blocker stops it
  try {
    const blob = await oneReport(async () => {
      const r = await fetch(a.getAttribute("href"), { headers: headers({}, false), cache: "no-store" });
      if (!r.ok) {
        const body = (r.headers.get("content-type") || "").includes("json") ? await r.json() : null;
        throw new Error((body && body.error && body.error.message) || "HTTP " + r.status);
      }
      return r.blob();
    });
    const url = URL.createObjectURL(blob);
    if (win) win.location.href = url;
    else el("a", { href: url, download: `round-${n}-dispute.${f}` }).click();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  } catch (e) {
    if (win) win.close();
    $("action-msg").textContent = t("history.dispute_failed", { n, why: e.message });
  }
}

function renderHistory(body) {
  state.historyBody = body; // drawn again when the key turns out to be a supervisor's (the dispute links)
  state.history = { page: body.page, size: body.size, total: body.total };
  const pages = Math.max(1, Math.ceil(body.total / body.size));
  // Each round is drawn by its own game's renderer (the table may have played several), by the game's view kind:
  // the table's now (a round of another game is drawn with the shared parts only).
  // A round opened a moment ago stays open: its toggle event comes as a task after the click, and a history drawn
  // again before it (a stream event, the supervisor's key answered) replaced it with a closed one.
  for (const d of $("history").querySelectorAll("details[open]")) state.openRounds.add(Number(d.dataset.round));
  const f = felt(state.view);
  const list = body.rounds.map((r) => {
    const perBox = {};
    for (const h of r.hands) perBox[h.box] = (perBox[h.box] || 0) + 1;
    const dealerBj = r.dealer.cards.length === 2 && r.dealer.total === 21;
    const who = titleText(r.dealer_title || "Dealer").toLowerCase();
    const duels = f.recordDuels ? f.recordDuels(r) : false;  // each hand its own duel against the banker
    const det = el("details", { "data-round": r.number },
      el("summary", {}, el("span", { class: "n", text: `#${r.number}` }),
        el("time", { datetime: r.settled_at || "", text: fmtTime(r.settled_at) }),
        duels ? el("span", { text: t("history.duels", { n: r.hands.length }) }) : el("span", { class: "cards" }, r.dealer.cards.map((c) => cardEl(c))),
        duels ? null : el("span", { text: dealerBj ? ((r.dealer_title || "Dealer") === "Dealer" ? t("history.dealer_bj") : t("history.who_total", { who, total: 21 }))
          : t("history.who_total", { who, total: r.dealer.total }) }),
        el("span", { text: t("history.boxes", { n: Object.keys(perBox).length }) }),
        house(r.net), r.void ? el("span", { class: "outcome void", "data-testid": "void", text: voidText(r) }) : null),
      el("table", {}, el("thead", {}, el("tr", {}, ["box", "cards", "bet", "outcome", "house"].map((c) => el("th", { scope: "col", text: t(`col.${c}`) })))),
        el("tbody", {}, r.hands.map((h) => el("tr", {}, el("td", { text: String(h.box) }),
          el("td", {}, el("span", { class: "cards" }, h.cards.map((c) => cardEl(c))),
            f.recordCards ? f.recordCards(r, h, who, helpers()) : null), el("td", { text: money(h.bet) }),
          el("td", {}, el("span", { text: (outcomeText(h.outcome) || "") + " " }),
            marks(f.recordMarks ? f.recordMarks(r, h, perBox[h.box]) : [])),
          el("td", {}, house(h.net)))),
        f.recordRows ? f.recordRows(r, helpers()) : [])),
      el("p", { class: "small" }, t("history.shoe", { id: r.shoe_id }),
        el("a", { class: "export", href: `/api/export?round=${r.number}` }, t("history.export", { n: r.number })),
        disputeLinks(r.number)));
    if (state.openRounds.has(r.number)) det.open = true;
    det.addEventListener("toggle", () => det.open ? state.openRounds.add(r.number) : state.openRounds.delete(r.number));
    return el("li", {}, det);
  });
  $("history").replaceChildren(...(list.length ? list : [el("li", { class: "none", text: t("history.none") })]));
  $("hist-page").textContent = t("history.page", { page: num(body.page), pages: num(pages), total: num(body.total) });
  $("hist-newer").disabled = body.page <= 1;
  $("hist-older").disabled = body.page >= pages;
}

// The demo's virtual dealer deals several times faster than a person: the badge says what a real table deals at
// these boxes (the published pace, about 418 / (boxes + 1) rounds an hour: docs/protection.md, "Dealers"), so the
// shift's 600 rounds an hour does not read as a broken table (issue 41).
const PUBLISHED_PACE = 418;
function renderDemoPace(f) {
  const boxes = f && f.rounds ? f.hands / f.rounds : null;  // (hands a round: the boxes played, splits aside)
  const real = boxes ? Math.round(PUBLISHED_PACE / (boxes + 1)) : null;
  $("demo-pace").textContent = t("demo.badge") + (real ? t("demo.real", { n: num(real) }) : "");
}

// A player by name; one nobody named is the box's own ("box3": the table's name for a box's anonymous player).
function playerName(name) {
  const box = /^box(\d+)$/.exec(name || "");
  return box ? t("box.name", { box: box[1] }) : name;
}

function renderFigures(f) {
  state.figuresBody = f;  // drawn again in another language
  renderDemoPace(f);
  $("fig-rph").textContent = num(f.rounds_per_hour);
  $("fig-hph").textContent = num(f.hands_per_hour);
  $("fig-rounds").textContent = t("shift.rounds_value", { rounds: num(f.rounds), hands: num(f.hands) });
  const houseEl = $("fig-house");
  const hold = Number(f.bets) ? t("shift.hold", { pct: num((100 * Number(f.house_result)) / Number(f.bets), 1), bets: money(f.bets) }) : "";
  houseEl.replaceChildren(house(-Number(f.house_result)), " ",
    hold ? el("span", { class: "muted small hold", "data-testid": "hold", text: "(" + hold + ")" }) : "");
  $("fig-boxes").replaceChildren(...f.boxes.map((b) => el("tr", {}, el("td", { text: t("box.name", { box: b.box }) }),
    el("td", { text: num(b.rounds) }), el("td", { text: num(b.hands) }), el("td", {}, house(-Number(b.house))))));
  $("fig-players").replaceChildren(...f.players.map((p) => el("tr", {}, el("td", { text: playerName(p.player) }),
    el("td", { text: num(p.rounds) }), el("td", { text: money(p.bets) }), el("td", {}, house(-Number(p.house))))));
  const svg = $("chart"), W = 300, H = 90, s = f.series;
  const maxR = Math.max(1, ...s.map((p) => p.rounds));
  const hv = s.map((p) => Number(p.house));
  const lo = Math.min(0, ...hv), hi = Math.max(0, ...hv), span = hi - lo || 1;
  const bw = W / s.length;
  const y = (x) => H - 4 - ((x - lo) / span) * (H - 8);
  const ns = "http://www.w3.org/2000/svg";
  const parts = s.map((p, i) => {
    const r = document.createElementNS(ns, "rect");
    const h = ((H - 8) * p.rounds) / maxR;
    Object.entries({ x: i * bw + 0.5, y: H - h, width: Math.max(1, bw - 1), height: h, fill: "#79b8ff", opacity: 0.55 })
      .forEach(([k, v]) => r.setAttribute(k, v));
    return r;
  });
  const zero = document.createElementNS(ns, "line");
  Object.entries({ x1: 0, x2: W, y1: y(0), y2: y(0), stroke: "#444", "stroke-dasharray": "3 3" }).forEach(([k, v]) => zero.setAttribute(k, v));
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", hv.map((v, i) => `${(i + 0.5) * bw},${y(v)}`).join(" "));
  Object.entries({ fill: "none", stroke: "#ffb347", "stroke-width": 2 }).forEach(([k, v]) => line.setAttribute(k, v));
  svg.replaceChildren(...parts, zero, line);
}

// ------------------------------------------------------------------ refreshing (coalesced)
function coalesced(fn) {
  let running = false, again = false;
  return async function run() {
    if (running) { again = true; return; }
    running = true;
    try { do { again = false; await fn(); } while (again); }
    catch (e) { note(e); }
    finally { running = false; }
  };
}
const refreshTable = coalesced(async () => renderTable(await api("/api/table")));
const refreshHistory = coalesced(async () => renderHistory(await api(`/api/rounds?size=20&page=${state.historyPage}`)));
const refreshFigures = coalesced(async () => {
  renderFigures(await api("/api/figures?hours=8"));
  await refreshDealers();
});

// Each dealer's figures are the supervisor's: asked for only with a key, and hidden when it is refused. One
// request at a time (coalesced): the table makes one report at a time and answers a second with 429 busy.
const refreshDealers = coalesced(dealersPanel);
async function dealersPanel() {
  const table = $("dealers");
  $("dealer-form").hidden = !state.key || state.keyRejected;
  if (!state.key || state.keyRejected) { table.hidden = true; supervisorIs(false); return; }
  let d;
  try { d = await oneReport(() => api("/api/dealers?hours=8")); } catch (e) {
    if (e.status === 429) { setTimeout(refreshDealers, 5000); return; }  // another client's report: the panel stays
    table.hidden = true; supervisorIs(false); return;
  }
  supervisorIs(true);
  renderDealers(d);
  table.hidden = false;
}
function renderDealers(d) {
  state.dealersBody = d;  // drawn again in another language
  const figure = (x) => (x === null ? "–" : num(x));
  const rows = d.dealers.map((x) => el("tr", {},
    el("th", { scope: "row", text: t("dealers.row", { dealer: x.dealer, shift: x.shift }) }), el("td", { text: num(x.rounds) }),
    el("td", { text: figure(x.rounds_per_hour) }), el("td", { text: figure(x.published_rounds_per_hour) }),
    el("td", { text: figure(x.hands_per_hour) }), el("td", { text: figure(x.per_100_rounds.refused) }),
    el("td", { text: t("dealers.weak", { weak: num(x.weak_shoes), shoes: num(x.shoes) }) })));
  $("dealer-rows").replaceChildren(...rows);
}
// Whether the key is a supervisor's (the dealers' panel answered it): the history's dispute links follow it.
function supervisorIs(yes) {
  if (state.supervisor === yes) return;
  state.supervisor = yes;
  if (state.historyBody) renderHistory(state.historyBody);
  refreshShiftLog();  // the shift log is the supervisor's too
}
const refreshAll = () => Promise.all([refreshTable(), refreshHistory(), refreshFigures(), refreshShiftLog()]);

// ------------------------------------------------------------------ the shift log
// An acknowledged alert leaves the alerts' column; the shift keeps it here: who acknowledged it, when, and how long
// it waited (issue 41). Read from the journal (GET /api/shift/alerts: the shift report's alerts, the
// supervisor's), so a reload, or the service's restart, finds every one again; asked through oneReport (the table
// makes one report at a time), once the key is known to be a supervisor's and when the alerts change.
const SHIFT_HOURS = 8;
const refreshShiftLog = coalesced(shiftLogPanel);
async function shiftLogPanel() {
  const panel = $("shift-log");
  if (!state.supervisor || !state.key || state.keyRejected) { panel.hidden = true; return; }  // (asked once it is)
  let body;
  try { body = await oneReport(() => api(`/api/shift/alerts?hours=${SHIFT_HOURS}`)); } catch (e) {
    if (e.status === 429) { setTimeout(refreshShiftLog, 5000); return; }  // another client's report: the log stays
    panel.hidden = true; return;
  }
  renderShiftLog(body);
  panel.hidden = false;
}
function renderShiftLog(body) {
  state.shiftLogBody = body;  // drawn again in another language
  const seen = body.alerts.filter((a) => a.acknowledged_by).reverse();  // the newest first
  $("shift-log-list").replaceChildren(...(seen.length ? seen.map((a) => {
    const who = a.acknowledged_by.replace(/^(viewer|dealer|supervisor|admin):/, "");
    const waited = a.waited_seconds === null ? "" : t("alerts.after", { span: span(1000 * a.waited_seconds) });
    return el("li", { class: "logged level-" + a.level, "data-alert-id": a.id, "data-kind": a.kind },
      el("time", { datetime: a.raised_at || "", text: fmtTime(a.raised_at) }),
      el("span", { class: "kind", text: t("shiftlog.kind_line", { kind: kindText(a.kind), id: a.id }) }),
      el("span", { class: "text", text: alertText(a) }),
      el("div", { class: "muted small", "data-testid": "logged-ack",
        text: t("shiftlog.ack", { who, time: fmtTime(a.acknowledged_at), waited }) }));
  }) : [el("li", { class: "none", text: t("shiftlog.none", { hours: SHIFT_HOURS }) })]));
}
// The alerts changed (one raised, acknowledged, closed): the log may have a line more.
function alertsChanged(alerts) {
  const now = alerts.map((a) => `${a.id}${a.acknowledged ? "+" : ""}`).join(",");
  if (now === state.alertsSeen) return;
  state.alertsSeen = now;
  refreshShiftLog();
}

function note(e) {
  if (e && e.status === 401) {
    $("action-msg").textContent = t(state.keyRejected ? "note.reads_rejected" : "note.reads_need_key");
    $("key").focus();
  } else if (e && e.name === "TimeoutError") $("action-msg").textContent = t("note.timeout");
  else if (e) $("action-msg").textContent = String(e.message || e);
}

function stats() {
  $("stats").textContent = t("stats.line", { updates: tn("stats.updates", state.events), missed: num(state.gaps),
    reconnects: tn("stats.reconnects", state.reconnects) });
  showSeq(state.sseSeq);
}

// The journal's number of the last update seen: the pit's word is "update", the number stays for support.
function showSeq(seq) {
  $("seq").textContent = seq ? t("seq.text", { seq }) : "";
}

// ------------------------------------------------------------------ the live stream
function setLive(on, text) {
  state.connected = on;
  const live = $("live");
  live.className = "live " + (on ? "on" : "off");
  live.textContent = text || t(on ? "live.on" : "live.reconnecting");
}

function onBlock(block) {
  let id = null, type = "message", data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i), value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
    if (field === "id") id = value; else if (field === "event") type = value; else if (field === "data") data += value;
  }
  if (type === "reset") { share({ type }); onUpdate(type); return; }
  if (type !== "table" || !data) return;
  const msg = JSON.parse(data);
  // Only what the other tabs need is passed on: never a card (this tab's key may see more than theirs).
  const update = { type, seq: Number(id || msg.seq), settled: msg.effects.some((e) => e.effect === "RoundSettled") };
  share(update);
  onUpdate(update.type, update.seq, update.settled);
}

// One update of the table, from this tab's stream or from the tab that holds it.
function onUpdate(type, seq, settled) {
  if (type === "reset") { refreshAll(); return; } // too far behind the service's buffer: reload the state
  if (seq <= state.sseSeq) return; // seen already (a resend after reconnecting)
  if (state.sseSeq && seq !== state.sseSeq + 1) { state.gaps += 1; refreshAll(); }
  state.sseSeq = seq;
  state.events += 1;
  stats();
  refreshTable();
  if (settled) { refreshHistory(); refreshFigures(); }
}

// ------------------------------------------------------------------ one live stream per browser
// Chromium keeps at most six connections to one host over HTTP/1.1, and a live stream holds one for
// good: with six dashboards of one table open, every read of every tab waited for ever, so the shift
// kept its "–" and nothing moved though it said "live" (issue 23). So one tab of the browser holds
// the stream (a lease in localStorage, renewed every 2 s) and passes each update on to the others
// (BroadcastChannel); another takes the lease over when that tab closes or stops renewing it.
const TAB = Math.random().toString(36).slice(2) + Date.now().toString(36);
const LEASE_KEY = "tablectl.stream", LEASE_MS = 6000;
const bus = typeof BroadcastChannel === "function" ? new BroadcastChannel("tablectl.stream") : null;

function share(message) { if (bus && state.leading) bus.postMessage(message); }

function takeLease() {
  if (!bus) return true; // no way to pass updates on: every tab streams
  try {
    const held = JSON.parse(localStorage.getItem(LEASE_KEY) || "null");
    const now = Date.now();
    if (held && held.tab !== TAB && now - held.at < LEASE_MS && held.at <= now) return false;
    localStorage.setItem(LEASE_KEY, JSON.stringify({ tab: TAB, at: now }));
    return true;
  } catch (e) { return true; } // storage refused: this tab streams for itself
}

function follow(m) {
  state.lastEventAt = Date.now();
  if (m.live !== undefined) {
    if (m.live !== state.connected) { setLive(m.live); if (m.live) refreshAll(); }
    return;
  }
  onUpdate(m.type, m.seq, m.settled);
}

function startLive() {
  if (bus) bus.onmessage = (ev) => { if (!state.leading) follow(ev.data); };
  const tick = () => {
    if (state.leading) {
      if (takeLease()) share({ live: state.connected });
      else { state.leading = false; if (state.controller) state.controller.abort(); } // another tab has it now
    } else if (takeLease()) { state.leading = true; streamForever(); }
  };
  tick();
  setInterval(tick, 2000);
  addEventListener("pagehide", () => {
    if (state.leading) try { localStorage.removeItem(LEASE_KEY); } catch (e) { /* nothing to hand over */ }
  });
}

async function streamForever() {
  let backoff = 250;
  while (state.leading) {
    const controller = new AbortController();
    state.controller = controller;
    try {
      const h = headers({ Accept: "text/event-stream" });
      if (state.sseSeq) h["Last-Event-ID"] = String(state.sseSeq);
      const r = await fetch("/api/events", { headers: h, signal: controller.signal, cache: "no-store" });
      if (!r.ok) {
        const e = new Error("stream: HTTP " + r.status);
        e.status = r.status;
        e.withKey = "Authorization" in h;
        throw e;
      }
      setLive(true);
      share({ live: true });
      backoff = 250;
      state.lastEventAt = Date.now();
      refreshAll(); // whatever changed while we were away (a restart), then the stream keeps it current
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        state.lastEventAt = Date.now();
        buf += value.replace(/\r\n?/g, "\n");
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) { onBlock(buf.slice(0, i)); buf = buf.slice(i + 2); }
      }
    } catch (e) {
      if (e && e.status === 401 && e.withKey) { rejectKey(); continue; } // at once, without the key
      if (e && e.status === 401) { state.readsNeedKey = true; showKeyState(); note(e); }
    }
    if (!state.leading) break; // another tab holds the stream now
    state.reconnects += 1;
    setLive(false);
    share({ live: false });
    stats();
    await new Promise((res) => setTimeout(res, backoff));
    backoff = Math.min(backoff * 2, 4000);
  }
}

// A connection that died without closing (a cable, a sleeping tablet): the service sends a keep-alive
// every 15 s, so 35 s of silence means the stream is gone; abort it and resume from the last event.
setInterval(() => {
  if (state.connected && Date.now() - state.lastEventAt > 35000 && state.controller) state.controller.abort();
}, 5000);
setInterval(() => refreshFigures(), 60000);
// The shoe's own state (its gate, a jam, the lid) comes in its heartbeat, not as journal events: look every 2 s.
setInterval(() => { if (state.connected) refreshTable(); }, 2000);

// ------------------------------------------------------------------ supervisor actions
// Each action's result in words: the catalogue's "act.done.KIND" and "act.failed.KIND".

// What an action answered is said where it was clicked (its alert's card, or its line on the banner), as well as
// at the top: a refusal said only at the top of the alerts' column went unseen from a banner's button (issue 41).
// It stays there, through the redraws, until the next click there or SAID_MS.
const SAID_MS = 30000;
function say(place, text, refused) {
  $("action-msg").textContent = text;
  if (!place) return;
  const said = { text, refused };
  state.said.set(place, said);
  setTimeout(() => { if (state.said.get(place) === said) { state.said.delete(place); redrawSaid(); } }, SAID_MS);
  redrawSaid();
}
function redrawSaid() {
  if (state.view) { renderBanner(state.view); renderAlerts(state.view.alerts); }
}
function saidAt(place) {
  const said = state.said.get(place);
  return said ? el("p", { class: "said" + (said.refused ? " refused" : ""), role: "status", "data-testid": "said",
    text: said.text }) : null;
}

async function act(kind, alertId, place) {
  if (!state.key || state.keyRejected) {
    say(place, t(state.key ? "act.key_rejected" : "act.key_needed"), true);
    $("key").focus();
    return;
  }
  const body = kind === "ack" ? { type: "ack_alert", alert_id: alertId }
    : kind === "discard" ? { type: "discard_card" } : { type: "void_round" };
  if (kind === "void" && !confirm(t("act.confirm_void"))) return;
  if (kind === "discard") {
    const held = ((state.view && state.view.held_cards) || []).map(cardName).join(", ") || t("act.the_held_card");
    if (!confirm(t("act.confirm_discard", { cards: held }))) return;
  }
  try {
    await api("/api/actions", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    say(place, t(`act.done.${kind}`), false);
  } catch (e) {
    say(place, e.status === 401 ? t("act.failed_key", { what: t(`act.failed.${kind}`) })
      : t("act.failed_why", { what: t(`act.failed.${kind}`), why: e.message }), true);
  }
  refreshTable();
  if (kind === "ack") refreshShiftLog();
}

async function download(a, ev) {
  if (!state.key || state.keyRejected) return; // open reads: the browser downloads it
  ev.preventDefault();
  try {
    const [name, blob] = await oneReport(async () => {
      const r = await fetch(a.href, { headers: headers() });
      if (!r.ok) throw new Error("HTTP " + r.status);
      return [(r.headers.get("content-disposition") || "").match(/filename="([^"]+)"/), await r.blob()];
    });
    const url = URL.createObjectURL(blob);
    const tmp = el("a", { href: url, download: name ? name[1] : "session.jsonl" });
    document.body.append(tmp); tmp.click(); tmp.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (e) { $("action-msg").textContent = t("export.failed", { why: e.message }); }
}

document.addEventListener("click", (ev) => {
  const b = ev.target.closest("button[data-act]");
  if (b) { act(b.dataset.act, Number(b.dataset.alert), (b.closest("#stopped") ? "banner:" : "alert:") + b.dataset.alert); return; }
  const a = ev.target.closest("a.export");
  if (a) download(a, ev);
});

// The pit signs a dealer in (a badge's id typed or scanned into the box) and out.
async function dealerDuty(body, done) {
  try {
    await api("/api/actions", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    $("action-msg").textContent = $("dealer-msg").textContent = done;
    $("dealer-msg").className = "said";
    $("dealer-id").value = "";
  } catch (e) {  // said beside the form, where the pit typed the badge, as well as at the top
    $("action-msg").textContent = $("dealer-msg").textContent = t("shift.duty_failed", { why: e.message });
    $("dealer-msg").className = "said refused";
  }
  refreshTable(); refreshDealers();
}
$("dealer-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const id = $("dealer-id").value.trim();
  if (id) dealerDuty({ type: "dealer_in", dealer: id }, t("shift.signed_in", { id }));
});
$("dealer-out").addEventListener("click", () => dealerDuty({ type: "dealer_out" }, t("shift.signed_out")));

$("history").addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-dispute]");
  if (!a) return;
  e.preventDefault();
  openDispute(a);
});
$("hist-newer").addEventListener("click", () => { state.historyPage = Math.max(1, state.historyPage - 1); refreshHistory(); });
$("hist-older").addEventListener("click", () => { state.historyPage += 1; refreshHistory(); });

$("key-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const k = $("key").value.trim();
  if (k) sessionStorage.setItem("tablectl.key", k); else sessionStorage.removeItem("tablectl.key");
  $("key").value = "";
  state.keyRejected = false; // a new key is tried afresh
  loadKey();
  $("action-msg").textContent = "";
  if (state.controller) state.controller.abort(); // reconnect with the key (a supervisor sees the hole card)
  refreshAll();
});

// One click forgets a rejected key: the page goes on without it, and a reload stays that way.
$("forget-key").addEventListener("click", () => {
  sessionStorage.removeItem("tablectl.key");
  state.keyRejected = false;
  state.readsNeedKey = false;
  loadKey();
  $("action-msg").textContent = t("key.forgotten");
  if (state.controller) state.controller.abort();
  refreshAll();
});

// This browser's own language, chosen on the page: kept, and the page drawn again in it at once.
$("lang").addEventListener("change", () => {
  const lang = $("lang").value;
  try { localStorage.setItem(LANGUAGE_KEY, lang); } catch (e) { /* storage refused: for this page only */ }
  setLanguage(lang).catch((e) => console.error("the catalogue did not load", e));
});

loadKey();
const started = performance.now();
catalogue("en");  // asked at once, beside the table's state (the words every language falls back to)
api("/api/table").then(async (v) => {
  state.sseSeq = v.last_seq; // the stream resumes right after the state we drew
  await setLanguage(chosenLanguage(v)).catch((e) => console.error("the catalogue did not load", e));
  renderTable(v);
  state.firstDraw = performance.now() - started;
}).catch(async (e) => {
  await setLanguage(chosenLanguage(null)).catch(() => {});
  note(e);
}).finally(() => { stats(); startLive(); });
