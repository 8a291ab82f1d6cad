// Baccarat's felt on the pit dashboard (view kind "baccarat"): the Player's hand beside the Banker's, each box's
// bets by spot, the squeeze, the commission owed. tablectl/api/static/app.js loads this module by the view's
// `view_kind`; each hook gets the table's view and the dashboard's helpers `h`.

function handEl(label, hand, h, testid) {
  if (!hand || !hand.cards.length) return null;
  const points = hand.totals.length ? ` ${hand.totals[0]}` : "";
  return h.el("span", { class: "bacc-hand", "data-testid": testid }, `${label} `,
    h.el("span", { class: "cards" }, hand.cards.map((c) => h.cardEl(c))), points);
}

export default {
  markText: { squeeze: "squeeze", waiting: "face down" },
  outcomeText: {},
  phaseText: { dealing: "coup" },
  // The same words in the pit's other languages (the dashboard's language: docs/service.md).
  words: { ru: { markText: { squeeze: "сквиз", waiting: "рубашкой вверх" }, phaseText: { dealing: "розыгрыш" } } },

  turnText(v) {
    if ((v.legal_actions || []).includes("reveal")) return "Squeeze: cards face down (reveal when turned)";
    return null;
  },

  tableMarks(v) {
    return v.squeeze ? ["squeeze"] : [];
  },

  // Beside the Banker's hand: the Player's, the cards waiting face down, the result of the coup on show.
  dealerExtras(v, h) {
    const settled = v.settled;
    const player = v.round !== null ? v.player_hand : settled ? settled.player_hand : null;
    const owed = Object.entries(v.commission_owed || {}).flatMap(([box, ps]) =>
      Object.entries(ps).map(([p, a]) => `box ${box} ${p} ${a}`));
    return [
      handEl("Player", player, h, "player-hand"),
      v.waiting && v.waiting.length ? h.el("span", { class: "muted", "data-testid": "waiting" }, "face down ",
        h.el("span", { class: "cards" }, v.waiting.map((c) => h.cardEl(c)))) : null,
      settled && settled.result ? h.el("span", { class: "outcome", "data-testid": "result",
        text: settled.result.toUpperCase() }) : null,
      owed.length ? h.el("span", { class: "muted small", "data-testid": "commission-owed",
        text: `commission owed: ${owed.join(", ")}` }) : null,
    ];
  },

  // Each bet's spot beside its hand (a box's "hands" are its bets by spot).
  handMarks(hand) {
    return [];
  },
  stood() {
    return false;
  },
  boxExtras(b, v, h) {
    return [h.el("div", { class: "small muted", "data-testid": "spots" },
      (b.hands || []).map((s) => `${s.spot} ${s.bet}` + (s.net !== null && s.net !== undefined ? ` → ${s.net}` : "")
        + (s.commission ? ` (commission ${s.commission})` : "")).join(" · "))];
  },

  recordMarks(r, hand) {
    return [];
  },
  recordCards(r, hand, who, h) {
    return h.el("span", { text: hand.spot + (hand.commission ? ` (commission ${hand.commission})` : "") });
  },
};
