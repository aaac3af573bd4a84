"""The fixed vocabulary of the game: Scenery and Material names, and the count tables.

Cards refer to these by index everywhere inside the engine (ints are cheap to copy and
compare); names appear only at the edges (JSON, notation, display).
"""

SCENERIES: tuple[str, ...] = ("ocean", "forest", "mountain", "flower", "field")
MATERIALS: tuple[str, ...] = ("stone", "water", "timber", "engineering", "steel")
SCENERY_INDEX = {name: i for i, name in enumerate(SCENERIES)}
MATERIAL_INDEX = {name: i for i, name in enumerate(MATERIALS)}

HAND_SIZE = 2
DEPOT_SIZE = 5
LANDMARK_ROW_SIZE = 5
CARDS_TAKEN_PER_TURN = 2
MIN_PLAYERS, MAX_PLAYERS = 2, 4
FULL_SET_HIGHWAY = 69
FULL_SET_LANDMARKS = 20
STRETCH_MIN_ICONS = 3
SUBSTITUTION_CARDS = 3


def landmark_count_points(count: int) -> int:
    """Category score for the number of Landmarks in a Highway (0, 3, 5 or 8)."""
    if count <= 0:
        return 0
    if count <= 2:
        return 3
    if count <= 4:
        return 5
    return 8
