"""One router per resource: hints, analysis, games (play sessions), cards, score and
payment, health and metrics."""
