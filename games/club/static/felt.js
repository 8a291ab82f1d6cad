// The club games' felt on the pit dashboard (view kind "club", club-21 and club-21-36 alike): closed hands, the
// banker, the bottom card, club-21's contra and spent pack, club-21-36's bank and duels. tablectl/api/static/app.js
// loads this module by the view's `view_kind`; each hook gets the table's view and the dashboard's helpers `h`.

function duelEl(b, v, h) {
  // club-21-36: each box plays its own duel against the banker; the bank's balance after it.
  const here = v.bank && v.bank.duel && v.bank.duel.box === b.box && v.round;
  if (!b.banker && (b.bank_after === null || b.bank_after === undefined) && !here) return null;
  return h.el("div", { class: "duel small", "data-testid": "duel" },
    b.banker && b.banker.cards.length ? h.el("span", {}, "banker ",
      h.el("span", { class: "cards" }, b.banker.cards.map((c) => h.cardEl(c))),
      ` ${h.handTotal(b.banker.totals, true)} `) : null,
    here ? h.el("span", { class: "outcome push", text: "duel" + (v.bank.duel.dark ? " · dark" : "") }) : null,
    b.bank_after !== null && b.bank_after !== undefined ? h.el("span", { class: "muted", text: ` bank after ${b.bank_after}` })
      : null);
}

function bankEl(bank, h) {
  if (!bank) return null;
  const duel = bank.duel ? ` · duel: box ${bank.duel.box}, stake ${bank.duel.stake}` + (bank.duel.dark ? ", dark" : "") : "";
  return h.el("span", { class: "bank", "data-testid": "bank" },
    bank.open ? `Bank ${bank.balance} (put up ${bank.opened_with}) · round ${bank.rounds_played}` + duel
      + (bank.may_close ? " · may close" : "") : "No bank open");
}

export default {
  // The club games' own marks and outcomes in the pit's words.
  markText: { closed: "closed", contra: "contra", recontra: "recontra", fold: "folded", dark: "dark",
    pack_out: "pack spent" },
  outcomeText: { bust: "bust", surrender: "surrender", natural: "natural 21", banker_bust: "banker bust",
    fold: "fold", withdrawn: "withdrawn", returned: "returned" },

  // The phases in the club games' words (the croupier is the banker).
  phaseText: { dealer: "banker's turn" },

  // The same words in the pit's other languages (the dashboard's language: docs/service.md; the terms of the
  // casino's documents, docs/rules.md: банкомёт, понтёр, контра, реконтра, очко, в тёмную).
  words: {
    ru: {
      markText: { closed: "закрыта", contra: "контра", recontra: "реконтра", fold: "отказ", dark: "в тёмную",
        pack_out: "колода кончилась" },
      outcomeText: { bust: "перебор", surrender: "сдался", natural: "очко", banker_bust: "перебор у банкомёта",
        fold: "отказ", withdrawn: "снята", returned: "возвращена" },
      phaseText: { dealer: "ход банкомёта" },
    },
  },

  // The turn line in the phases only the club games have.
  turnText(v) {
    if (v.phase === "contra") return "Contra? (the next card closes it)";
    if (v.phase === "pack_out") return "Pack spent: each box doubles or folds";
    return null;
  },

  // Beside the banker: the round's own marks (club-21's contra and spent pack), the bottom card, the bank.
  tableMarks(v) {
    const m = [];
    if (v.contra) m.push("contra");
    if (v.pack_out) m.push("pack_out");
    return m;
  },
  dealerExtras(v, h) {
    return [
      v.bottom_card ? h.el("span", { class: "bottom muted small", "data-testid": "bottom-card" }, "bottom card ",
        h.cardEl(v.bottom_card)) : null,
      bankEl(v.bank, h),
    ];
  },

  // A box's own marks (club-21: recontra, the spent pack's choice), and under it its duel (club-21-36).
  boxMarks(b) {
    const m = [];
    if (b.recontra) m.push("recontra");
    if (b.choice === "double") m.push("doubled");
    if (b.choice === "fold") m.push("fold");
    return m;
  },
  boxExtras(b, v, h) {
    return [duelEl(b, v, h)];
  },

  // A hand's marks besides those every game's hands have: closed, dark, folded.
  handMarks(hand) {
    const m = [];
    if (hand.closed) m.push("closed");
    if (hand.dark) m.push("dark");
    if (hand.outcome === "fold") m.push("fold");
    return m;
  },

  // The banker's marks besides his total: his cards closed.
  dealerMarks(d) {
    return d.closed ? ["closed"] : [];
  },

  // A settled hand's marks in the round list.
  recordMarks(r, hand, boxHands) {
    const m = [];
    if (hand.outcome === "bust") m.push("busted");
    if (hand.outcome === "surrender") m.push("surrendered");
    if (boxHands > 1) m.push("split");
    return m;
  },

  // A round of duels (club-21-36): each hand holds the banker's cards of its own duel; his cards of the
  // whole round, run together under one total, would mean nothing.
  recordDuels(r) {
    return r.hands.some((hand) => Array.isArray(hand.banker));
  },
  recordCards(r, hand, who, h) {
    return hand.banker && hand.banker.length ? h.el("span", { class: "muted small", "data-testid": "duel-banker" },
      ` vs ${who} `, h.el("span", { class: "cards" }, hand.banker.map((c) => h.cardEl(c))),
      hand.banker_total !== null && hand.banker_total !== undefined
        ? ` (${hand.banker_total > 21 ? "bust" : hand.banker_total})` : "") : null;
  },
};
