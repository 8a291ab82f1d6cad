// The floor dashboard: polls /api/floor with the key in a header and draws one tile per table.
// Vanilla JS, no build step, nothing from a CDN. A click on a tile opens the table's own dashboard.
"use strict";
const $ = (id) => document.getElementById(id);
const state = { key: sessionStorage.getItem("tablectl.floor.key"), polls: 0, failures: 0 };
window.tablectlFloor = state;

function headers() { return state.key ? { Authorization: "Bearer " + state.key } : {}; }

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v; else if (k.startsWith("data-")) e.setAttribute(k, v); else e[k] = v;
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

function age(s) {
  if (s === null || s === undefined) return "";
  if (s < 60) return Math.round(s) + " s";
  if (s < 3600) return Math.floor(s / 60) + " min";
  return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
}

// A time the floor's clock gave (seconds since the epoch) as the pit reads it: HH:MM, this browser's zone.
function hhmm(t) {
  return t === null || t === undefined ? "–"
    : new Date(t * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
}

// The house's result in the pit's words: signed from the house's side, coloured ahead or behind (never
// the alarm red: a table behind is a table having a run, not an incident).
function house(result) {
  const n = Number(result);
  if (result === null || result === undefined || result === "" || !Number.isFinite(n)) {
    return el("span", { class: "house" }, "House –");
  }
  const text = (n > 0 ? "+" : n < 0 ? "−" : "") + Math.abs(n).toLocaleString("en-US", { maximumFractionDigits: 2 });
  return el("span", { class: "house " + (n > 0 ? "ahead" : n < 0 ? "behind" : "even"), "data-house": String(n) },
    "House " + text);
}

function whole(n) { return n === null || n === undefined ? null : Math.round(n).toLocaleString("en-US"); }

function fact(label, value, testid, cls) {
  return el("div", { class: cls }, el("dt", {}, label), el("dd", { "data-testid": testid }, value === null || value === undefined ? "–" : value));
}

// The table's rows as evidence (the tile's `evidence`, docs/floor.md "The floor dashboard"), in words.
function evidence(t) {
  const e = t.evidence;
  const nokey = "no key for this table: cannot verify";
  const words = {
    none: ["", "no rows yet"],
    verified: ["good", `all ${e.total} rows received, verified`],
    verifying: ["", `all ${e.total} rows received, verifying…`],
    no_key: ["warn", `all ${e.total} rows received; ${nokey}`],
    missing: ["warn", `rows missing: ${e.missing} of ${e.total} (${e.received} received` +
      (e.past_gap ? `; ${e.past_gap} more past the gap, counted once it closes` : "") + ")" + (e.key ? "" : `; ${nokey}`)],
    bad: ["bad", "a row failed its check: see the floor's incidents"],
  }[e.state] || ["", e.state];
  return el("div", { class: "evidence", "data-testid": "evidence", "data-state": e.state },
    "Evidence: ", el("span", { class: words[0] }, words[1]),
    t.conflicts ? el("span", { class: "bad" }, ` · ${t.conflicts} row${t.conflicts > 1 ? "s" : ""} in conflict`) : null,
    t.recovery && t.recovery.failing
      ? el("span", { class: "warn", title: t.recovery.error || "", "data-testid": "recovery" },
        " · asking the table for them: its API does not answer") : null);
}

// The game's own facts (the table's game names them: baccarat's last results and the shoe's counts), drawn as
// they come: the floor names no game.
function gameFacts(t) {
  const facts = t.game_facts || [];
  if (!facts.length) return null;
  return el("dl", { class: "game-facts", "data-testid": "game-facts" },
    // A long text (the last results) takes the whole row; a count, a third of it, as the table's own facts do.
    ...facts.map(f => el("div", { class: f.text.length > 6 ? "wide" : "" }, el("dt", {}, f.label), el("dd", {}, f.text))));
}

function tile(t) {
  // The tile follows its most urgent level, the floor's own included (issue 23): offline is an alarm,
  // no key waits for a person (action); a notice (a due shuffle, every shoe) is shown but not red.
  const needsPerson = t.level === "action" || t.level === "alarm";
  const cls = ["tile", needsPerson ? "alerting" : "", t.level ? "level-" + t.level : "", t.offline ? "offline" : ""]
    .filter(Boolean).join(" ");
  const pen = t.penetration === null || t.penetration === undefined ? null : Math.round(t.penetration * 100);
  const noKey = (t.floor_alerts || []).filter(a => a.kind !== "offline");
  const alerts = el("ul", { class: "alerts", "aria-label": "open alerts" },
    ...t.alerts.map(a => el("li", { class: [a.level || "", a.acknowledged ? "acked" : ""].join(" ").trim(), "data-kind": a.kind },
      `${a.kind.replace(/_/g, " ")} · ${age(a.age_s)}`)),
    ...noKey.map(a => el("li", { class: a.level, "data-kind": a.kind }, a.message)));
  // What the table last said: live while it is online, greyed "last known" once it is offline.
  const play = [
    el("div", {}, el("span", { class: "phase " + (t.phase || ""), "data-testid": "phase" }, (t.phase || "–").replace(/_/g, " ")),
      " ", el("span", { class: "muted", "data-testid": "round" }, t.round ? `round ${t.round}` : (t.rounds_played !== null && t.rounds_played !== undefined ? `${t.rounds_played} played` : ""))),
    el("div", { class: "pen", title: "shoe penetration" }, el("div", { style: `width:${pen || 0}%` })),
    el("dl", {},
      fact("Dealer", t.dealer_on_duty, "dealer-on-duty"),
      fact("Shoe", pen === null ? null : pen + " %", "penetration"),
      fact("Rounds/h", whole(t.rounds_per_hour), "rph"),
      fact("Hands/h", whole(t.hands_per_hour), "hph"),
      fact("Shift result", house(t.house_result), "result", "result")),
  ];
  const gone = (t.floor_alerts || []).find(a => a.kind === "offline");
  const since = t.offline
    ? el("div", { class: "since", "data-testid": "offline-since" },
      `offline since ${hhmm(t.offline_since)}` + (gone && gone.age_s !== null ? ` (${age(gone.age_s)})` : ""))
    : null;
  const body = [
    el("div", { class: "head" },
      el("span", { class: "name" }, t.name),
      t.online ? el("span", { class: "online" }, "online")
        : el("span", { class: "offline-label" }, t.offline ? "offline" : "unknown")),
    el("div", { class: "game" }, [t.pit ? `Pit ${t.pit}` : null, t.game || "–", t.profile || "–"].filter(Boolean).join(" · ")),
    gameFacts(t),
    since,
    alerts,
    t.offline
      ? el("div", { class: "last-known", "data-testid": "last-known" },
        el("div", { class: "caption" }, `last known at ${hhmm(t.heard_at)}`), ...play)
      : el("div", {}, ...play),
    evidence(t),
  ];
  const link = t.dashboard_url
    ? el("a", { href: t.dashboard_url, target: "_blank", rel: "noopener", title: "open the table's dashboard" }, ...body)
    : el("div", { class: "nolink", style: "padding:.6rem .8rem" }, ...body);
  return el("li", { class: cls, "data-table": t.id }, link);
}

function plural(n, one, many) { return `${n} ${n === 1 ? one : many}`; }

// The floor's header (the API's `totals`): tables open, their pace, the shift's result, the alarms (an
// offline table is one) and the tables waiting for a person.
function totals(data) {
  const s = data.totals;
  const sep = () => el("span", { class: "sep" }, " · ");
  return [
    el("span", { "data-testid": "open" }, `${s.online} of ${plural(s.tables, "table", "tables")} open`), sep(),
    el("span", { "data-testid": "rph" }, `${whole(s.rounds_per_hour)} rounds/h`), sep(),
    el("span", { "data-testid": "house" }, house(s.house_result)), sep(),
    el("span", { class: s.alarms ? "alarm" : "", "data-testid": "alarms" }, plural(s.alarms, "alarm", "alarms")),
    s.offline ? el("span", { class: "alarm", "data-testid": "offline" }, ` (${s.offline} offline)`) : null, sep(),
    el("span", { class: s.waiting ? "waiting" : "", "data-testid": "waiting" }, `${s.waiting} waiting`),
  ].filter(Boolean);
}

function groups(data) {
  // By pit when asked and when any table has one; else the floor as one list (the API's order either way).
  const byId = new Map(data.tables.map(t => [t.id, t]));
  const pits = data.pits || [];
  if (!$("group").checked || !pits.some(g => g.pit !== null)) {
    return [el("ol", { class: "tiles" }, ...data.tables.map(tile))];
  }
  return pits.map(g => el("section", { class: "pit", "data-pit": g.pit === null ? "" : g.pit },
    el("h2", {}, g.pit === null ? "No pit" : `Pit ${g.pit}`,
      el("span", { class: "muted" }, ` · ${plural(g.tables.length, "table", "tables")}`),
      g.alarms ? el("span", { class: "alarm" }, ` · ${plural(g.alarms, "alarm", "alarms")}`) : null,
      g.waiting ? el("span", { class: "waiting" }, ` · ${g.waiting} waiting`) : null),
    el("ol", { class: "tiles" }, ...g.tables.map(id => tile(byId.get(id))))));
}

// While the floor's store does not answer (its database away or stalled), the tiles are as last read: said.
function storeNote(store) {
  if (!store || store.available) return "";
  const at = (t) => t ? new Date(t * 1000).toLocaleTimeString() : "–";
  return `The floor's store is not answering since ${at(store.since)}: the tables below are as last read at ` +
    `${at(store.read_at)}, rows and exports wait for it.`;
}

function draw(data) {
  $("floor-name").textContent = data.floor;
  state.last = data;
  $("store").textContent = storeNote(data.store);
  $("store").hidden = !$("store").textContent;
  $("summary").replaceChildren(...totals(data));
  $("tiles").replaceChildren(...groups(data));
  $("live").className = "live " + (data.connected ? "on" : "off");
  $("live").textContent = data.connected ? "broker connected" : "broker unreachable";
}

async function poll() {
  try {
    const r = await fetch("/api/floor", { headers: headers(), cache: "no-store" });
    if (r.status === 401 || r.status === 403) {
      $("msg").textContent = "This floor needs a viewer key: enter one above.";
      $("live").className = "live off"; $("live").textContent = "no key";
    } else if (!r.ok) {
      throw new Error("HTTP " + r.status);
    } else {
      $("msg").textContent = "";
      draw(await r.json());
      state.polls += 1;
      if (state.firstDraw === undefined) state.firstDraw = performance.now();
    }
  } catch (e) {
    state.failures += 1;
    $("live").className = "live off"; $("live").textContent = "floor unreachable";
  }
  $("stats").textContent = `updated ${new Date().toLocaleTimeString()}`;
  setTimeout(poll, 1000);
}

$("key-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const k = $("key").value.trim();
  state.key = k || null;
  if (k) sessionStorage.setItem("tablectl.floor.key", k); else sessionStorage.removeItem("tablectl.floor.key");
  $("key").value = "";
  $("key-state").textContent = state.key ? "key set" : "no key";
});
$("key-state").textContent = state.key ? "key set" : "no key";
$("group").checked = localStorage.getItem("tablectl.floor.group") !== "no";
$("group").addEventListener("change", () => {
  localStorage.setItem("tablectl.floor.group", $("group").checked ? "yes" : "no");
  if (state.last) draw(state.last);
});
poll();
