"""Maximum-weight assignment (the Hungarian method, as successive shortest augmenting paths with
potentials): each row gets a distinct column so that the total weight is as large as it can be.

Graded metrics need it where partial argument accuracy is a weight, so a plain maximum matching
would not do. Pairs of weight 1 (identical arguments) may be given as a start: with weights in
[0, 1] they are tight under zero potentials, so only the remaining rows are searched, each in
O(rows x columns).

Where most calls are identical that is still every column for each leftover row. Given
``start_within`` (whether a row's weight against every start column is at most a limit), the
leftover rows are first assigned among the leftover columns alone, and the result is kept when the
potentials prove it optimal for the whole problem: with the start's rows and columns at potential
0, every constraint holds but those between a leftover row and a start column, which ask that
row's potential to be at most 1 minus its weight there, so that weight at most ``1 - u(row)``.
When the proof fails (a leftover call is as close to an identical pair's call as to its own
partner) the whole problem is searched as before: the result is the same optimum either way.
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
    start_within: Callable[[int, float], bool] | None = None,
    rest_weights: Callable[[int], list[float] | None] | None = None,
) -> list[int]:
    """For each row the column it is assigned (``rows <= columns``), maximising the sum of
    ``weight(row, column)``, which must lie in [0, 1].

    ``start`` lists ``(row, column)`` pairs of weight 1 to begin with; the other rows are placed
    around them (still optimally: a later row may take a start column if that is better).
    ``start_within(row, limit)``, for a row outside the start, says whether its weight against
    every start column is at most ``limit``; with it the leftovers are searched alone where that
    is provably optimal.
    ``rest_weights(row)`` may then give a leftover row's weights against every column outside
    the start, in order, all at once (``None``: ask ``weight`` pair by pair).
    """
    if rows > columns:
        raise ValueError(f"cannot assign {rows} rows to {columns} columns")
    start = list(start)
    if start and start_within is not None:
        found = _around_start(rows, columns, weight, start, start_within, rest_weights)
        if found is not None:
            return found
    # without a start every column is outside it, so the rows' weights may come at once
    _, owner = _solve(range(rows), columns, weight, start, None if start else rest_weights)
    assigned = [-1] * rows
    for j in range(1, columns + 1):
        if owner[j]:
            assigned[owner[j] - 1] = j - 1
    return assigned


_SLACK = 1e-9  # rounding in the potentials' sums; a proof off by less changes no score


def _around_start(
    rows: int,
    columns: int,
    weight: Callable[[int, int], float],
    start: list[tuple[int, int]],
    start_within: Callable[[int, float], bool],
    rest_weights: Callable[[int], list[float] | None] | None,
) -> list[int] | None:
    """The start, with the other rows assigned among the other columns alone, if the
    potentials prove that optimal (see the module docstring), else ``None``."""
    in_start = {row for row, _ in start}
    taken = {column for _, column in start}
    rest_rows = [row for row in range(rows) if row not in in_start]
    rest_columns = [column for column in range(columns) if column not in taken]
    u, owner = _solve(
        range(len(rest_rows)),
        len(rest_columns),
        lambda a, b: weight(rest_rows[a], rest_columns[b]),
        [],
        None if rest_weights is None else lambda a: rest_weights(rest_rows[a]),
    )
    for a, row in enumerate(rest_rows):
        if not start_within(row, 1.0 - u[a + 1] + _SLACK):
            return None
    assigned = [-1] * rows
    for row, column in start:
        assigned[row] = column
    for b in range(len(rest_columns)):
        if owner[b + 1]:
            assigned[rest_rows[owner[b + 1] - 1]] = rest_columns[b]
    return assigned


def _solve(
    rows: Iterable[int],
    columns: int,
    weight: Callable[[int, int], float],
    start: list[tuple[int, int]],
    row_weights: Callable[[int], list[float] | None] | None = None,
) -> tuple[list[float], list[int]]:
    """The row potentials and the owner of each column (1-based, 0 for none) after placing
    ``rows`` around ``start``."""
    row_ids = list(rows)
    size = max(row_ids, default=-1) + 1
    u = [0.0] * (size + 1)  # row potentials (1-based; index 0 is the virtual root)
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
            given = row_weights(i - 1) if row_weights is not None else None
            if given is None:
                given = [weight(i - 1, j) for j in range(columns)]
            row_costs = costs[i] = [0.0] + [1.0 - w for w in given]
        return row_costs

    for row in row_ids:
        if row not in placed:
            _place(row + 1, columns, cost_row, u, v, owner)
    return u, owner


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
