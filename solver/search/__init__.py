"""Choosing moves: the search, the bots, tournaments and the value model, on top of
:mod:`solver.rules` (which knows nothing of them).

Start with :mod:`solver.search.api`, the one entry point that ``bigsur hint``, the HTTP
server and the game review call::

    from solver.rules import new_game, view_of
    from solver.search.api import Budget, analyse

    state = new_game(2, seed=1)
    result = analyse(view_of(state, state.current), Budget.parse("2000i"), seed=1)
    result.best.actions, result.best.win_probability   # see RankedMove, SearchResult

The modules, each documented in its own docstring:

- :mod:`~solver.search.api`: :func:`~solver.search.api.analyse` ranks every candidate
  move of the seat to act (:class:`~solver.search.api.Budget`, ``RankedMove``,
  ``SearchResult``); a full state is first reduced to that seat's view.
- :mod:`~solver.search.bots`: players behind one protocol (``act(view, seed)``) and one
  spec grammar (``random``, ``greedy``, ``mcts:1s``, ``mcts:500i``...): ``make_bot``.
- :mod:`~solver.search.tournament`: matches between bots on paired deals, with win
  rates, margins and Elo: ``run_tournament``.
- :mod:`~solver.search.ismcts`: the information-set Monte Carlo tree search itself;
  :mod:`~solver.search.determinize`: full states consistent with a view.
- :mod:`~solver.search.value`: the evaluation (the learned model, else the
  hand-written heuristic); :mod:`~solver.search.train`: self-play and training.
"""
