// The generic felt (docs/games.md): the renderer of a view kind whose games ship none in their folder's static/.
// The dashboard then draws what every game's view has (boxes, hands, the dealer, bets, outcomes, the settled
// round) and nothing of its own: a game that needs its marks, phases or panels drawn ships its own felt.js.
export default {};
