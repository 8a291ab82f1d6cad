// The table-side scoreboard: polls GET /api/scoreboard (public: settled coups only) and draws the roads.
const ROAD_IDS = ["bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"];

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
  if (bead) e.textContent = c.mark;
  else e.append(el("span"));
  if (c.ties) { e.append(el("div", { class: "tie-slash" })); if (c.ties > 1) e.append(el("b", { text: String(c.ties) })); }
  if (c.banker_pair) e.append(el("div", { class: "dot bp" }));
  if (c.player_pair) e.append(el("div", { class: "dot pp" }));
  return e;
}

function draw(board) {
  const n = board.counts;
  document.getElementById("counts").replaceChildren(
    el("span", { class: "banker", text: `B ${n.banker}` }), el("span", { class: "player", text: `P ${n.player}` }),
    el("span", { class: "tie", text: `T ${n.tie}` }), el("span", { class: "banker", text: `BP ${n.banker_pair}` }),
    el("span", { class: "player", text: `PP ${n.player_pair}` }), el("span", { text: `# ${n.coups}` }));
  document.getElementById("last").replaceChildren(...board.last.map((r) => el("span", { class: r[0].toUpperCase(),
    text: r[0].toUpperCase() })));
  for (const id of ROAD_IDS) {
    document.getElementById(id).replaceChildren(...board[id].map((c) => cellEl(c, id === "bead_plate")));
  }
  document.getElementById("status").textContent = board.shoe_id ? `shoe ${board.shoe_id}` : "";
}

async function poll() {
  try {
    const r = await fetch("/api/scoreboard", { cache: "no-store" });
    if (r.ok) { draw(await r.json()); document.body.dataset.loaded = "1"; }
    else document.getElementById("status").textContent = `scoreboard unavailable (${r.status})`;
  } catch (e) {
    document.getElementById("status").textContent = "scoreboard: no connection";
  }
  setTimeout(poll, 2000);
}
poll();
