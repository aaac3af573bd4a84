"""Other card sets to measure the AI on: the shipped reconstruction with its cards'
attributes reshuffled. The printed list is not public (``card-facts.md``), so what the
AI does on the cards an owner loads is measured on stand-ins for them.

    python -m bench.cardsets --seed 1 --out /tmp/shuffled-1.json
    python -m bench.cardsets --seed 3 --redraw --out /tmp/redrawn-3.json
    python -m bench.variants value=solver/search/models/value.npz --budget 1 \\
        --cards /tmp/shuffled-1.json          # the shipped model against the fallback

A reshuffle keeps every stated fact of the cards (each card's Mile value and
player-count mark, so the decks keep their sizes; a Persistent Material on every
1-Mile card, a scoring condition on every 2-Mile card) and the totals of the set (how
many of each Scenery icon, cost Material, back Material, condition and ability), and
deals them out anew: which Sceneries a card shows, what it costs, its back, which 1-Mile
card gives which Persistent Material, which 2-Mile card scores which condition, and
each Landmark's Scenery and ability. What a model learned about *this* card (its
fingerprint) no longer holds; what it learned about Highways, hands and Materials
does. The printed list may differ from the reconstruction in its totals too: with
``--redraw`` every Scenery icon, cost Material, back Material, Persistent Material and
Landmark Scenery is drawn anew, uniformly, so the totals move as well (the conditions,
abilities, cost sizes, Mile values and marks are still dealt out from the set's own).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from solver.rules.cards import CardSet, default_card_set, parse_card_set
from solver.rules.constants import MATERIALS, SCENERIES


def _deal(cards: list[dict], fields: tuple[str, ...], rng: random.Random) -> None:
    """Permute the values of ``fields`` (kept together) among ``cards``, in place."""
    values = [tuple(c[f] for f in fields) for c in cards]
    rng.shuffle(values)
    for card, value in zip(cards, values, strict=True):
        card.update(zip(fields, value, strict=True))


def reshuffled(cards: CardSet, seed: int, redraw: bool = False) -> CardSet:
    """``cards`` with its attributes dealt out anew among its cards (see the module
    doc), named ``<name>-shuffled-<seed>`` (``-redrawn-`` with ``redraw``: Sceneries and
    Materials drawn uniformly instead); the same arguments give the same set."""
    raw = json.loads(json.dumps(cards.to_json()))
    rng = random.Random(seed)
    highway = raw["highway"]
    for fields in (("scenery",), ("cost",), ("material",)):
        _deal(highway, fields, rng)
    _deal([c for c in highway if "persistent" in c], ("persistent",), rng)
    _deal([c for c in highway if "bonus" in c], ("bonus", "text"), rng)
    _deal(raw["landmarks"], ("scenery",), rng)
    _deal(raw["landmarks"], ("ability", "text"), rng)
    if redraw:
        for card in highway:
            card["scenery"] = [rng.choice(SCENERIES) for _ in card["scenery"]]
            card["cost"] = [rng.choice(MATERIALS) for _ in card["cost"]]
            card["material"] = rng.choice(MATERIALS)
            if "persistent" in card:
                card["persistent"] = rng.choice(MATERIALS)
        for landmark in raw["landmarks"]:
            landmark["scenery"] = rng.choice(SCENERIES)
    how = "redrawn" if redraw else "shuffled"
    raw["name"] = f"{raw['name']}-{how}-{seed}"
    raw["reconstruction"] = True
    raw["description"] = (f"The card set {cards.name!r} with its cards' attributes "
                          f"{'redrawn' if redraw else 'reshuffled'} "
                          f"(python -m bench.cardsets --seed {seed}"
                          f"{' --redraw' if redraw else ''}): a stand-in for another list "
                          "of the cards, not the printed one.")
    return parse_card_set(raw, raw["name"])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.cardsets", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--redraw", action="store_true",
                   help="draw Sceneries and Materials anew, so the totals move too")
    p.add_argument("--out", required=True, help="the card-set JSON file to write")
    args = p.parse_args(argv)
    cards = reshuffled(default_card_set(), args.seed, args.redraw)
    Path(args.out).write_text(json.dumps(cards.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {cards.label}, fingerprint {cards.fingerprint}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
