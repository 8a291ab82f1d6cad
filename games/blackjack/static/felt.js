// Blackjack's felt on the pit dashboard (view kind "blackjack"): what the dashboard draws of a blackjack table
// besides what every game shares (tablectl/api/static/app.js loads this module by the view's `view_kind`).
// Each hook gets the table's view and the dashboard's helpers `h` (el, cardEl, marks); none names a game.

export default {
  // Blackjack's own marks and outcomes in the pit's words.
  markText: { blackjack: "BJ", insured: "insured", even_money: "even money" },
  outcomeText: { blackjack: "blackjack", bust: "bust", surrender: "surrender", even_money: "even money",
    three_sevens: "three sevens" },
  // The same words in the pit's other languages (the dashboard's language: docs/service.md; the seeds' terms).
  words: {
    ru: {
      markText: { blackjack: "BJ", insured: "застрахован", even_money: "равные деньги" },
      outcomeText: { blackjack: "блэкджек", bust: "перебор", surrender: "сдался", even_money: "равные деньги",
        three_sevens: "три семёрки" },
    },
  },

  // A box's own marks: its insurance.
  boxMarks(b) {
    return b.insurance ? ["insured"] : [];
  },

  // A two-card 21, first among a hand's marks (the dealer's too).
  naturalMarks(hand) {
    return hand.blackjack ? ["blackjack"] : [];
  },
  dealerNaturalMarks(d) {
    return d.blackjack ? ["blackjack"] : [];
  },

  // A hand's marks besides those every game's hands have (busted, doubled, split, surrendered, stood).
  handMarks(hand) {
    return hand.outcome === "even_money" ? ["even_money"] : [];
  },

  // A hand is done without a mark of its own (it stood) unless it ended so: a blackjack, even money is no stand.
  stood(hand) {
    return !hand.blackjack && hand.outcome !== "even_money";
  },
  dealerStood(d) {
    return !d.blackjack;
  },

  // A settled hand's marks in the round list.
  recordMarks(r, hand, boxHands) {
    const m = [];
    if (hand.outcome === "blackjack") m.push("blackjack");
    if (hand.outcome === "bust") m.push("busted");
    if (hand.outcome === "surrender") m.push("surrendered");
    if (hand.outcome === "even_money") m.push("even_money");
    if (boxHands > 1) m.push("split");
    if ((r.insurance || []).some((i) => i.box === hand.box)) m.push("insured");
    return m;
  },

  // The round list's rows besides the hands': each box's insurance.
  recordRows(r, h) {
    return (r.insurance || []).map((i) => h.el("tr", {}, h.el("td", { text: String(i.box) }),
      h.el("td", { text: h.t ? h.t("box.insurance_result").trim() : "insurance" }),
      h.el("td", { text: h.money ? h.money(i.amount) : i.amount }), h.el("td", { text: "" }),
      h.el("td", {}, h.house(i.net))));
  },
};
