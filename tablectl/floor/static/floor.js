// The floor dashboard: polls /api/floor with the key in a header and draws one tile per table.
// Vanilla JS, no build step, nothing from a CDN. A click on a tile opens the table's own dashboard.
"use strict";
const $ = (id) => document.getElementById(id);
const state = { key: sessionStorage.getItem("tablectl.floor.key"), polls: 0, failures: 0, tables: [] };
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

function fact(label, value, testid) {
  return el("div", {}, el("dt", {}, label), el("dd", { "data-testid": testid }, value === null || value === undefined ? "–" : String(value)));
}

function tile(t) {
  // The tile follows its most urgent alert's level (the engine's table, issue 23): a notice (a due
  // shuffle, every shoe) is shown but the tile is not red and the table is not "alerting".
  const needsPerson = t.level === "action" || t.level === "alarm";
  const cls = ["tile", needsPerson ? "alerting" : "", t.level ? "level-" + t.level : "", t.online ? "" : "offline"]
    .filter(Boolean).join(" ");
  const pen = t.penetration === null || t.penetration === undefined ? null : Math.round(t.penetration * 100);
  const alerts = el("ul", { class: "alerts", "aria-label": "open alerts" },
    ...t.alerts.map(a => el("li", { class: [a.level || "", a.acknowledged ? "acked" : ""].join(" ").trim(), "data-kind": a.kind },
      `${a.kind.replace(/_/g, " ")} · ${age(a.age_s)}`)));
  const ledger = el("div", { class: "ledger", "data-testid": "ledger" },
    `rows ${t.contiguous}/${Math.max(t.head_seq, t.max_seq)}`,
    t.gaps ? el("span", { class: "bad" }, ` · ${t.gaps} gap${t.gaps > 1 ? "s" : ""}`) : null,
    t.recovery && t.recovery.failing
      ? el("span", { class: "bad", title: t.recovery.error || "", "data-testid": "recovery" }, " · table API unreachable") : null,
    " · MAC ", el("span", { class: t.mac === "bad" ? "bad" : "" }, t.mac.replace("_", " ")));
  const body = [
    el("div", { class: "head" },
      el("span", { class: "name" }, t.name),
      t.online ? el("span", { class: "online" }, "online") : el("span", { class: "offline-label" }, t.status === "unknown" ? "unknown" : "offline")),
    el("div", { class: "game" }, `${t.game || "–"} · ${t.profile || "–"}`),
    el("div", {}, el("span", { class: "phase " + (t.phase || ""), "data-testid": "phase" }, (t.phase || "–").replace(/_/g, " ")),
      " ", el("span", { class: "muted", "data-testid": "round" }, t.round ? `round ${t.round}` : (t.rounds_played !== null && t.rounds_played !== undefined ? `${t.rounds_played} played` : ""))),
    alerts,
    el("div", { class: "pen", title: "shoe penetration" }, el("div", { style: `width:${pen || 0}%` })),
    el("dl", {},
      fact("Shoe", pen === null ? null : pen + " %", "penetration"),
      fact("Rounds/h", t.rounds_per_hour, "rph"),
      fact("Hands/h", t.hands_per_hour, "hph"),
      fact("Result", t.house_result, "result")),
    ledger,
  ];
  const link = t.dashboard_url
    ? el("a", { href: t.dashboard_url, target: "_blank", rel: "noopener", title: "open the table's dashboard" }, ...body)
    : el("div", { class: "nolink", style: "padding:.6rem .8rem" }, ...body);
  return el("li", { class: cls, "data-table": t.id }, link);
}

function draw(data) {
  $("floor-name").textContent = data.floor;
  const tables = data.tables;
  state.tables = tables;
  // Counted by the floor service (with_alerts): a table whose only alert is a notice is not counted.
  const alerting = data.with_alerts ?? tables.filter(t => t.alerts.length).length;
  const online = tables.filter(t => t.online).length;
  $("summary").textContent = `${tables.length} tables · ${online} online · ${alerting} with alerts`;
  $("tiles").replaceChildren(...tables.map(tile));
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
poll();
