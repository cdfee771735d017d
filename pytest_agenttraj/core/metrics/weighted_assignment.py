"""Maximum-weight assignment (the Hungarian method, as successive shortest augmenting paths with
potentials): each row gets a distinct column so that the total weight is as large as it can be.

Graded metrics need it where partial argument accuracy is a weight, so a plain maximum matching
would not do. Pairs known to be optimal (identical arguments, weight 1) may be given as a start:
with weights in [0, 1] they are tight under zero potentials, so only the remaining rows are
searched, each in O(rows x columns).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["max_weight_assignment"]

_INF = float("inf")


def max_weight_assignment(
    rows: int,
    columns: int,
    weight: Callable[[int, int], float],
    start: Iterable[tuple[int, int]] = (),
) -> list[int]:
    """For each row the column it is assigned (``rows <= columns``), maximising the sum of
    ``weight(row, column)``, which must lie in [0, 1].

    ``start`` lists ``(row, column)`` pairs of weight 1 to keep; the other rows are placed
    around them (still optimally, since no assignment can beat weight 1 on those pairs).
    """
    if rows > columns:
        raise ValueError(f"cannot assign {rows} rows to {columns} columns")
    u = [0.0] * (rows + 1)  # row potentials (1-based; index 0 is the virtual root)
    v = [0.0] * (columns + 1)  # column potentials
    owner = [0] * (columns + 1)  # owner[j]: the row holding column j, 0 for none
    placed: set[int] = set()
    for row, column in start:
        owner[column + 1] = row + 1
        placed.add(row)
    costs: dict[int, list[float]] = {}

    def cost_row(i: int) -> list[float]:
        row_costs = costs.get(i)
        if row_costs is None:
            row_costs = costs[i] = [0.0] + [1.0 - weight(i - 1, j) for j in range(columns)]
        return row_costs

    for row in range(rows):
        if row not in placed:
            _place(row + 1, columns, cost_row, u, v, owner)
    assigned = [-1] * rows
    for j in range(1, columns + 1):
        if owner[j]:
            assigned[owner[j] - 1] = j - 1
    return assigned


def _place(
    i: int,
    columns: int,
    cost_row: Callable[[int], list[float]],
    u: list[float],
    v: list[float],
    owner: list[int],
) -> None:
    """Add row ``i`` along a shortest augmenting path (reduced costs), updating the potentials."""
    owner[0] = i
    j0 = 0
    least = [_INF] * (columns + 1)
    came_from = [0] * (columns + 1)
    used = [False] * (columns + 1)
    while True:
        used[j0] = True
        i0 = owner[j0]
        row_costs = cost_row(i0)
        u_i0 = u[i0]
        delta, j1 = _INF, 0
        for j in range(1, columns + 1):
            if used[j]:
                continue
            reduced = row_costs[j] - u_i0 - v[j]
            if reduced < least[j]:
                least[j], came_from[j] = reduced, j0
            if least[j] < delta:
                delta, j1 = least[j], j
        for j in range(columns + 1):
            if used[j]:
                u[owner[j]] += delta
                v[j] -= delta
            else:
                least[j] -= delta
        j0 = j1
        if owner[j0] == 0:
            break
    while j0:
        j1 = came_from[j0]
        owner[j0] = owner[j1]
        j0 = j1
